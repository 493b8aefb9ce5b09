package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Baton's options in a JDBC URL are checked when the client is built, as every backend's URI options
 * are: a misspelt one, or one of the client's LockOptions, fails {@link Baton#connect} at once with a
 * one-line {@link LockConfigurationException}, instead of the first acquire failing seconds later with
 * a connection error (H2, which refuses unknown settings) or the lock silently running with the
 * default (PostgreSQL and MariaDB, whose drivers ignore unknown parameters).
 */
class JdbcUrlOptionsTest {
    @TempDir
    Path dir;

    @Test
    void aMisspeltOptionOnH2FailsTheConnectNotTheFirstAcquire() throws IOException {
        String url = "jdbc:h2:" + dir.resolve("locks") + ";leaseTme=10s";
        assertThatThrownBy(() -> Baton.connect(url).close())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageStartingWith("Baton JDBC URL jdbc:h2:")
                .hasMessageContaining("'leaseTme' is not a URI option (did you mean 'leaseTime'?)")
                .hasMessageContaining("LockOptions.builder().leaseTime(...)")
                .as("one line")
                .hasMessageNotContaining("\n");
        assertThat(files()).as("no database was opened").isEmpty();
    }

    @Test
    void aLockOptionOnH2IsToldWhereItIsSet() {
        assertThatThrownBy(
                        () -> Baton.connect("jdbc:h2:mem:lease;leaseTime=10s").close())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'leaseTime' is not a URI option")
                .hasMessageContaining("baton.lease-time in Spring Boot");
    }

    @Test
    void aMisspeltStrategyOnPostgresIsRefusedInsteadOfIgnoredByTheDriver() {
        // No server: the URL is judged when the client is built, before any connection.
        assertThatThrownBy(() -> Baton.connect("jdbc:postgresql://127.0.0.1:1/app?user=u&stratgy=advisory")
                        .close())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown option 'stratgy' (did you mean 'strategy'?)");
        assertThatThrownBy(() -> Baton.connect("jdbc:mariadb://127.0.0.1:1/app?tabel=app_locks")
                        .close())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown option 'tabel' (did you mean 'table'?)");
    }

    @Test
    void anH2UrlWithAQueryIsRefusedInsteadOfCreatingAFileOfThatName() throws IOException {
        String url = "jdbc:h2:" + dir.resolve("bad") + "?table=foo";
        assertThatThrownBy(() -> Baton.connect(url).close())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("H2 URLs take settings and Baton's options after ';', not '?'")
                .hasMessageContaining(dir.resolve("bad") + ";table=foo");
        assertThat(files()).as("no bad?table=foo.mv.db").isEmpty();
    }

    @Test
    void fairFalseInTheUrlIsWhatTheClientsOptionsSay() {
        try (LockClient client = Baton.connect("jdbc:h2:mem:unfair;DB_CLOSE_DELAY=-1;fair=false")) {
            assertThat(client.options().fair()).isFalse();
        }
        try (LockClient client = Baton.connect("jdbc:postgresql://127.0.0.1:1/app?fair=false&user=u")) {
            assertThat(client.options().fair()).isFalse();
        }
        try (LockClient client = Baton.connect("jdbc:h2:mem:fair")) {
            assertThat(client.options().fair()).isTrue();
        }
    }

    @Test
    void batonsOptionsNeverReachTheDriverAndTheDriversPassThrough() {
        // H2 refuses a setting it does not know, so a lock taken here shows that none of Baton's reached it.
        String url = "jdbc:h2:mem:options;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;clientName=billing;fair=false;"
                + "TABLE=opt_locks;STRATEGY=optimistic;createSchema=true";
        try (LockClient client = Baton.connect(url);
                Lease lease = client.lock("job").acquire(KitTime.grant())) {
            assertThat(client.backendName()).startsWith("jdbc-table");
            assertThat(client.options().clientName()).isEqualTo("billing");
            assertThat(lease.isValid()).isTrue();
        }
    }

    private List<String> files() throws IOException {
        try (Stream<Path> names = Files.list(dir)) {
            return names.map(p -> p.getFileName().toString()).toList();
        }
    }
}
