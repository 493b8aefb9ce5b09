package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.servers.JdbcUrls.HostPort;
import org.junit.jupiter.api.Test;

class JdbcUrlsTest {

    private static final HostPort NONE = new HostPort("", -1);

    @Test
    void parsesHostAndPort() {
        assertThat(JdbcUrls.parse("jdbc:postgresql://db.example.com:6543/baton?ssl=true", 5432, NONE))
                .isEqualTo(new HostPort("db.example.com", 6543));
        assertThat(JdbcUrls.parse("jdbc:h2:tcp://127.0.0.1:9123/mem:baton;DB_CLOSE_DELAY=-1", 9092, NONE))
                .isEqualTo(new HostPort("127.0.0.1", 9123));
    }

    @Test
    void usesTheDefaultPortWhenThereIsNone() {
        assertThat(JdbcUrls.parse("jdbc:postgresql://db/baton", 5432, NONE)).isEqualTo(new HostPort("db", 5432));
        assertThat(JdbcUrls.parse("jdbc:h2:tcp://localhost/~/test", 9092, NONE))
                .isEqualTo(new HostPort("localhost", 9092));
        assertThat(JdbcUrls.parse("jdbc:postgresql:///baton", 5432, NONE)).isEqualTo(new HostPort("localhost", 5432));
    }

    @Test
    void takesTheFirstOfSeveralHostsAndUnderstandsIpv6() {
        assertThat(JdbcUrls.parse("jdbc:postgresql://a:1,b:2/baton", 5432, NONE))
                .isEqualTo(new HostPort("a", 1));
        assertThat(JdbcUrls.parse("jdbc:postgresql://[::1]:5433/baton", 5432, NONE))
                .isEqualTo(new HostPort("::1", 5433));
        assertThat(JdbcUrls.parse("jdbc:postgresql://[::1]/baton", 5432, NONE)).isEqualTo(new HostPort("::1", 5432));
    }

    @Test
    void reportsUrlsWithoutNetworkAddress() {
        assertThat(JdbcUrls.parse("jdbc:h2:mem:baton", 9092, NONE)).isEqualTo(NONE);
    }

    @Test
    void rejectsANonNumericPort() {
        assertThatThrownBy(() -> JdbcUrls.parse("jdbc:postgresql://db:port/baton", 5432, NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port");
    }
}
