package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KitTimeTest {
    @Test
    void aKitTestsTimeoutOutlastsItsLongestWaitAtItsMostStretched() {
        Duration longest = KitTime.bulkWork(KitTime.LARGEST_RUN);
        Duration acrossProcesses = KitTime.COLD_START.plus(KitTime.bulkWork(3 * 40));
        Duration stretched = (longest.compareTo(acrossProcesses) >= 0 ? longest : acrossProcesses)
                .multipliedBy((long) KitTime.MAX_STRETCH);
        assertThat(Duration.ofSeconds(KitTime.TEST_TIMEOUT_SECONDS)).isGreaterThan(stretched);
    }
}
