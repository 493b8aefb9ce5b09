package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A row's availability: its grants per second against the same target's run without faults. */
class CheckRowTest {
    private static CheckRow row(long holds, Duration duration, List<Fault> faults) {
        CheckResult result = new CheckResult(holds, 0, 0, 0, Duration.ZERO, 0, 0, 0, 0, 0, List.of(), 0, 0, null);
        return new CheckRow("redis-sentinel", "d", false, false, faults, faults.size(), duration, 1, result);
    }

    @Test
    void availabilityIsTheRateOfGrantsAgainstTheRunWithoutFaults() {
        CheckRow calm = row(400, Duration.ofSeconds(10), List.of());
        CheckRow faulted = row(600, Duration.ofSeconds(30), List.of(Fault.FAILOVER));
        assertThat(faulted.availability()).as("not measured").isNaN();
        assertThat(faulted.comparedWith(calm).availability()).isCloseTo(0.5, within(1e-9));
        assertThat(faulted.comparedWith(row(0, Duration.ofSeconds(10), List.of()))
                        .availability())
                .as("nothing to compare with")
                .isNaN();
    }
}
