package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The {@code clientName} and {@code fair} URI parameters are read by the core and never reach the backend. */
class CommonUriOptionsTest {

    @Test
    void theParameterIsTakenOutWhateverTheUrisParameterSyntax() {
        assertThat(CommonUriOptions.strip("redis://h:6379?clientName=a")).isEqualTo("redis://h:6379");
        assertThat(CommonUriOptions.strip("redis://h:6379?clientName=a&fair=false&prefix=p"))
                .isEqualTo("redis://h:6379?prefix=p");
        assertThat(CommonUriOptions.strip("redis-sentinel://h:26379?CLIENTNAME=a#mymaster"))
                .isEqualTo("redis-sentinel://h:26379#mymaster");
        assertThat(CommonUriOptions.strip("jdbc:postgresql://h/db?user=u&clientName=b%20c&password=p"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=p");
        assertThat(CommonUriOptions.strip("jdbc:h2:tcp://h/db;MODE=PostgreSQL;clientName=z;FAIR=false"))
                .isEqualTo("jdbc:h2:tcp://h/db;MODE=PostgreSQL");
        assertThat(CommonUriOptions.strip("zookeeper://h:2181/baton")).isEqualTo("zookeeper://h:2181/baton");
    }

    @Test
    void theParameterNamesTheClientDecoded() {
        LockOptions options = CommonUriOptions.apply(
                "jdbc:postgresql://h/db?user=u&clientName=nightly%20billing", LockOptions.defaults());
        assertThat(options.clientName()).isEqualTo("nightly billing");
        assertThat(CommonUriOptions.apply("redis://h", LockOptions.defaults())).isSameAs(LockOptions.defaults());
    }

    @Test
    void fairFalseInTheUriTurnsTheOptionOff() {
        assertThat(CommonUriOptions.apply("jdbc:h2:mem:x;fair=false", LockOptions.defaults())
                        .fair())
                .isFalse();
        assertThat(CommonUriOptions.apply("redis://h?fair=true", LockOptions.defaults()))
                .isSameAs(LockOptions.defaults());
        LockOptions barging = LockOptions.builder().fair(false).build();
        assertThat(CommonUriOptions.apply("redis://h?fair=true", barging).fair())
                .as("fair=true leaves the options' own fair(false)")
                .isFalse();
        assertThat(CommonUriOptions.apply("redis-sentinel://h?fair=FALSE#m", LockOptions.defaults())
                        .fair())
                .isFalse();
    }

    @Test
    void aBadFairValueIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> CommonUriOptions.apply("redis://h?fair=no", LockOptions.defaults()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("fair='no' is not true or false");
    }

    @Test
    void aBadClientNameIsRefusedNamingTheOption() {
        String tooLong = "x".repeat(LockOptions.Builder.CLIENT_NAME_MAX_LENGTH + 1);
        assertThatThrownBy(() -> CommonUriOptions.apply("redis://h?clientName=" + tooLong, LockOptions.defaults()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("clientName")
                .hasMessageContaining("at most 40");
        assertThatThrownBy(() -> LockOptions.builder().clientName("a\nb"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("control characters");
        assertThatThrownBy(() -> LockOptions.builder().clientName(null)).isInstanceOf(LockConfigurationException.class);
    }

    @Test
    void theClientNameIsAnOptionLikeTheOthers() {
        LockOptions named = LockOptions.builder().clientName("billing").build();
        assertThat(named.toBuilder().build()).isEqualTo(named).hasSameHashCodeAs(named);
        assertThat(named).isNotEqualTo(LockOptions.defaults());
        assertThat(named.toString()).contains("clientName=billing");
        assertThat(LockOptions.defaults().clientName()).isEmpty();
    }
}
