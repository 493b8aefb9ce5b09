package dev.baton.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How long the machine kept runnable tasks waiting for a CPU, from Linux's pressure stall
 * information ({@code /proc/pressure/cpu}, the {@code some} line: the share of the last 10 and 60
 * seconds, and the {@code total} in microseconds, during which at least one runnable task waited for
 * a core).
 *
 * <p>A time bound that a property promises (a killed leader's successor elected within the freed
 * lease plus {@link TestTime#TAKE_OVER}) is a promise about the backend and the client,
 * not about a machine whose cores other processes keep busy. A check of such a bound adds the stall
 * measured over the same interval ({@link #mark()}, {@link #millisSince(long)}), so that it holds
 * exactly on an idle machine and, on a busy one, by what was measured, never by a guess. A thread
 * that parks and times its own wake-ups does not measure this: the scheduler favours a waking
 * thread, so it sees a small part of the delay that pressure stall information counts.
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
        String total = field("total=");
        return total.isEmpty() ? 0 : Long.parseLong(total);
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

    /**
     * The share of recent time during which runnable tasks waited for a core: the larger of the last
     * 10 and the last 60 seconds' averages, so that a machine that just became busy and one that just
     * paused between two busy stretches both count as busy.
     *
     * @return between 0 (idle, or not measured) and 1 (a task waited all the time)
     */
    static double recentShare() {
        String avg10 = field("avg10=");
        String avg60 = field("avg60=");
        double share = Math.max(
                avg10.isEmpty() ? 0 : Double.parseDouble(avg10), avg60.isEmpty() ? 0 : Double.parseDouble(avg60));
        return Math.min(1, share / 100);
    }

    /** The value of {@code key} on the {@code some} line, or an empty string. */
    private static String field(String key) {
        try {
            List<String> lines = Files.readAllLines(PRESSURE, StandardCharsets.US_ASCII);
            for (String line : lines) {
                if (line.startsWith("some ")) {
                    int at = line.indexOf(key);
                    if (at < 0) {
                        return "";
                    }
                    int end = line.indexOf(' ', at);
                    return line.substring(at + key.length(), end < 0 ? line.length() : end)
                            .trim();
                }
            }
            return "";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
