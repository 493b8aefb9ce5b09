package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** CPU per pair counts a server process the JVM started, from its {@code /proc} ticks. */
class CpuSampleTest {

    @Test
    void theCpuOfAChildProcessIsCountedAsServerCpu() throws Exception {
        CpuSample before = CpuSample.now();
        // A child that spins for a while, says so, then waits idle on its input until it is closed.
        Process child = new ProcessBuilder(
                        "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; echo spun; read x")
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("spun");
            CpuSample after = CpuSample.now();
            // The loop takes at least a few tens of milliseconds of CPU; ticks are 10 ms.
            assertThat(after.serverNanosSince(before)).isGreaterThanOrEqualTo(20_000_000L);
            // This JVM's CPU is known (not -1); it may not have moved while it only waited on the child
            // (the kernel counts process CPU in 10 ms ticks).
            assertThat(after.clientNanosSince(before)).isNotNegative();
        } finally {
            child.getOutputStream().close();
            child.waitFor();
        }
    }
}
