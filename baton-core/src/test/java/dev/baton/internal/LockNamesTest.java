package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockNamesTest {

    @Test
    void acceptsAnyUnicodeUpTo512Bytes() {
        assertThat(LockNames.validate("a".repeat(512), "b")).hasSize(512);
        assertThat(LockNames.validate("é".repeat(256), "b")).hasSize(256);
        assertThat(LockNames.validate("\uD83D\uDD12 lock/../x", "b")).isNotEmpty();
    }

    @Test
    void rejectionsNameTheBackendTheProblemAndTheRule() {
        assertThatThrownBy(() -> LockNames.validate("a".repeat(513), "redis"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("513 UTF-8 bytes long")
                .hasMessageContaining("on redis")
                .hasMessageContaining("1 to 512 UTF-8 bytes");
        assertThatThrownBy(() -> LockNames.validate("é".repeat(257), "b")).hasMessageContaining("514 UTF-8 bytes");
        assertThatThrownBy(() -> LockNames.validate("a\u0007b", "b")).hasMessageContaining("U+0007 at index 1");
        assertThatThrownBy(() -> LockNames.validate("\u009f", "b")).hasMessageContaining("U+009F");
        assertThatThrownBy(() -> LockNames.validate("x\uDC00", "b")).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> LockNames.validate("", "b")).hasMessageContaining("empty");
        assertThatThrownBy(() -> LockNames.validate(null, "b")).hasMessageContaining("null");
    }

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
