package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The {@code clientName} URI parameter is read by the core and never reaches the backend. */
class ClientNameParameterTest {

    @Test
    void theParameterIsTakenOutWhateverTheUrisParameterSyntax() {
        assertThat(ClientNameParameter.strip("redis://h:6379?clientName=a")).isEqualTo("redis://h:6379");
        assertThat(ClientNameParameter.strip("redis://h:6379?clientName=a&fair=false"))
                .isEqualTo("redis://h:6379?fair=false");
        assertThat(ClientNameParameter.strip("jdbc:postgresql://h/db?user=u&clientName=b%20c&password=p"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=p");
        assertThat(ClientNameParameter.strip("jdbc:h2:tcp://h/db;MODE=PostgreSQL;clientName=z"))
                .isEqualTo("jdbc:h2:tcp://h/db;MODE=PostgreSQL");
        assertThat(ClientNameParameter.strip("zookeeper://h:2181/baton")).isEqualTo("zookeeper://h:2181/baton");
    }

    @Test
    void theParameterNamesTheClientDecoded() {
        LockOptions options = ClientNameParameter.apply(
                "jdbc:postgresql://h/db?user=u&clientName=nightly%20billing", LockOptions.defaults());
        assertThat(options.clientName()).isEqualTo("nightly billing");
        assertThat(ClientNameParameter.apply("redis://h", LockOptions.defaults()))
                .isSameAs(LockOptions.defaults());
    }

    @Test
    void aBadClientNameIsRefusedNamingTheOption() {
        String tooLong = "x".repeat(LockOptions.Builder.CLIENT_NAME_MAX_LENGTH + 1);
        assertThatThrownBy(() -> ClientNameParameter.apply("redis://h?clientName=" + tooLong, LockOptions.defaults()))
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
