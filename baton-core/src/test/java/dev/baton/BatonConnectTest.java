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
    void everySchemeBatonServesIsOneItKnows() {
        assertThatThrownBy(() -> Baton.connect("consul://127.0.0.1:8500"))
                .hasMessageContaining("redis-cluster")
                .hasMessageContaining("rediss-cluster")
                .hasMessageContaining("etcds");
        assertThatThrownBy(() -> Baton.connect("rediss-cluster://h:1,h:2"))
                .hasMessageContaining("add the dependency dev.baton:baton-redis");
        assertThatThrownBy(() -> Baton.connect("etcds://h:2379")).hasMessageContaining("dev.baton:baton-etcd");
        assertThatThrownBy(() -> Baton.connect("jdbc:mysql://h/db"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("write the URL as jdbc:mariadb://host:3306/db")
                .hasMessageContaining("dev.baton:baton-jdbc");
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
