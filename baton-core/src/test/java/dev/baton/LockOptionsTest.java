package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
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

    @Test
    void optionsAreAFinalClassMadeOnlyByTheBuilder() {
        assertThat(Modifier.isFinal(LockOptions.class.getModifiers())).isTrue();
        assertThat(LockOptions.class.isRecord()).isFalse();
        assertThat(LockOptions.class.getConstructors()).isEmpty();
        assertThat(LockOptions.Builder.class.getConstructors()).isEmpty();
    }

    @Test
    void equalValuesMakeEqualOptions() {
        LockListener listener = new LockListener() {};
        LockOptions a = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(7))
                .autoRenew(false)
                .operationTimeout(Duration.ofSeconds(2))
                .pollInitialDelay(Duration.ofMillis(20))
                .pollMaxDelay(Duration.ofMillis(200))
                .fair(false)
                .listener(listener)
                .build();
        LockOptions b = a.toBuilder().build();
        assertThat(b).isEqualTo(a).hasSameHashCodeAs(a);
        assertThat(b.listeners()).containsExactly(listener);
        assertThat(a.toBuilder().fair(true).build()).isNotEqualTo(a);
        assertThat(a.toBuilder().listener(listener).build()).isNotEqualTo(a);
        assertThat(a.withLeaseTime(Duration.ofSeconds(8))).isNotEqualTo(a);
        assertThat(a)
                .hasToString("LockOptions[leaseTime=PT7S, autoRenew=false, operationTimeout=PT2S,"
                        + " pollInitialDelay=PT0.02S, pollMaxDelay=PT0.2S, listeners=[" + listener
                        + "], fair=false, clientName=]");
    }

    @Test
    void laterBuilderChangesDoNotReachBuiltOptions() {
        LockListener first = new LockListener() {};
        LockOptions.Builder builder = LockOptions.builder().listener(first);
        LockOptions built = builder.build();
        builder.listener(new LockListener() {}).leaseTime(Duration.ofSeconds(1));
        assertThat(built.listeners()).containsExactly(first);
        assertThat(built.leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> built.listeners().add(first)).isInstanceOf(UnsupportedOperationException.class);
    }
}
