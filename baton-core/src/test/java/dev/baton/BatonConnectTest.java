package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BatonConnectTest {

    @Test
    void knownSchemeWithoutItsModuleNamesTheModuleToAdd() {
        assertThatThrownBy(() -> Baton.connect("redis://127.0.0.1:6379"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("dev.baton:baton-redis");
        assertThatThrownBy(() -> Baton.connect("jdbc:postgresql://127.0.0.1/db?user=u&password=secret"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("dev.baton:baton-jdbc")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> Baton.connect("mem://app"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("dev.baton:baton-test");
    }

    @Test
    void unknownSchemeListsTheKnownOnes() {
        assertThatThrownBy(() -> Baton.connect("consul://127.0.0.1:8500"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown scheme 'consul'")
                .hasMessageContaining("zookeeper");
    }

    @Test
    void emptyOrSchemelessUrisAreRejected() {
        assertThatThrownBy(() -> Baton.connect(" ")).isInstanceOf(LockConfigurationException.class);
        assertThatThrownBy(() -> Baton.connect(null)).isInstanceOf(LockConfigurationException.class);
        assertThatThrownBy(() -> Baton.connect("localhost"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("no scheme");
        assertThatThrownBy(() -> Baton.connect("redis://h", null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("LockOptions.defaults()");
    }

    @Test
    void schemesOfJdbcUrlsIncludeTheSubprotocol() {
        assertThat(Baton.schemeOf("jdbc:postgresql://h/db")).isEqualTo("jdbc:postgresql");
        assertThat(Baton.schemeOf("JDBC:H2:mem:x")).isEqualTo("jdbc:h2");
        assertThat(Baton.schemeOf("redis://h:1")).isEqualTo("redis");
    }

    @Test
    void passwordsAreRedacted() {
        assertThat(Baton.redact("redis://user:pw@h:1/0")).isEqualTo("redis://user:***@h:1/0");
        assertThat(Baton.redact("jdbc:postgresql://h/db?user=u&password=pw&x=1"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&x=1");
        assertThat(Baton.redact("jdbc:h2:tcp://h/mem:x;PASSWORD=pw;USER=sa"))
                .isEqualTo("jdbc:h2:tcp://h/mem:x;PASSWORD=***;USER=sa");
    }
}
