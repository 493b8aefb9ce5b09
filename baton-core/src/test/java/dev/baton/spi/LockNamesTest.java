package dev.baton.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
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
}
