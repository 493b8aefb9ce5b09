package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OwnerIdsAndBackoffTest {

    @Test
    void ownerIdsAre128RandomBits() {
        String id = OwnerIds.next();
        assertThat(id).hasSize(32).matches("[0-9a-f]{32}");
        assertThat(OwnerIds.next()).isNotEqualTo(id);
    }

    @Test
    void backoffGrowsToItsCapWithJitter() {
        Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(80));
        long[] pauses = new long[8];
        for (int i = 0; i < pauses.length; i++) {
            pauses[i] = backoff.nextPauseNanos();
        }
        assertThat(pauses[0]).isBetween(5_000_000L, 10_000_000L);
        assertThat(pauses[1]).isBetween(10_000_000L, 20_000_000L);
        for (int i = 3; i < pauses.length; i++) {
            assertThat(pauses[i]).isBetween(40_000_000L, 80_000_000L);
        }
    }
}
