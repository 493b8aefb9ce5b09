package dev.baton.tck;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * How long the machine kept runnable tasks waiting for a CPU, from Linux's pressure stall
 * information ({@code /proc/pressure/cpu}, the {@code some} line's {@code total}: microseconds during
 * which at least one runnable task waited for a core).
 *
 * <p>A time bound that a property promises (a killed leader's successor elected within the freed
 * lease plus {@link KitTime#TAKE_OVER}) is a promise about the backend and the client,
 * not about a machine whose cores other processes keep busy. On the 2-core build machine with both
 * cores saturated, a Redlock successor was elected 232 ms past such a bound. A check of such a bound
 * adds the stall measured over the same interval ({@link #mark()}, {@link #millisSince(long)}), so
 * that it holds exactly on an idle machine and, on a busy one, by what was measured, never by a guess.
 * A thread that parks and times its own wake-ups does not measure this: the scheduler favours a
 * waking thread, so it saw 37 ms of delay in 3 s beside four busy loops on two cores, where pressure
 * stall information counted the whole 3 s.
 *
 * <p>Where the file does not exist (not Linux, or a kernel without it), no stall is ever measured and
 * every bound is checked as on an idle machine.
 */
final class MachineStalls {
    private static final Path PRESSURE = Path.of("/proc/pressure/cpu");

    private MachineStalls() {}

    /**
     * The stall counter now, for {@link #millisSince(long)}.
     *
     * @return microseconds of CPU pressure since boot, or 0 where the kernel does not count them
     */
    static long mark() {
        try {
            for (String line : Files.readAllLines(PRESSURE, StandardCharsets.US_ASCII)) {
                if (line.startsWith("some ")) {
                    int at = line.indexOf("total=");
                    return at < 0
                            ? 0
                            : Long.parseLong(
                                    line.substring(at + "total=".length()).trim());
                }
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The stall measured since {@code mark}.
     *
     * @param mark a value of {@link #mark()}
     * @return milliseconds during which runnable tasks waited for a core since {@code mark}
     */
    static long millisSince(long mark) {
        return Math.max(0, TimeUnit.MICROSECONDS.toMillis(mark() - mark));
    }
}
