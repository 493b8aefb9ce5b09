package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockOptionsTest {

    @Test
    void defaultsAreSensible() {
        LockOptions defaults = LockOptions.defaults();
        assertThat(defaults.leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.autoRenew()).isTrue();
        assertThat(defaults.operationTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
    }

    @Test
    void everyDurationIsValidatedWhenSet() {
        assertThatThrownBy(() -> LockOptions.builder().pollInitialDelay(Duration.ZERO))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("pollInitialDelay must be positive but was PT0S");
        assertThatThrownBy(() -> LockOptions.builder().pollMaxDelay(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("pollMaxDelay must not be null");
        assertThatThrownBy(() -> LockOptions.builder()
                        .pollInitialDelay(Duration.ofSeconds(2))
                        .pollMaxDelay(Duration.ofSeconds(1))
                        .build())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("pollMaxDelay");
    }

    @Test
    void withLeaseTimeKeepsTheRest() {
        LockOptions options = LockOptions.builder().autoRenew(false).build().withLeaseTime(Duration.ofSeconds(3));
        assertThat(options.leaseTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.autoRenew()).isFalse();
    }
}
