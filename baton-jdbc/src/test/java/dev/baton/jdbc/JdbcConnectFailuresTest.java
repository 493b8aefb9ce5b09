package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.ForkedJava;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection that fails says which failure it is, with the driver's own reason: a file database in
 * use by another process, wrong credentials, a database that does not exist. None of them speaks of
 * the pool's size (PostgresPinnedConnectionPoolTest has the pool that really is exhausted, and
 * UnreachableDatabaseTest the server that is not there).
 */
class JdbcConnectFailuresTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(3)).build();

    @TempDir
    Path dir;

    /** A child JVM holding {@code url} open (and the lock {@code lock}, if given), ready once this returns. */
    private static ForkedJava holder(String url, String... lock) throws Exception {
        CompletableFuture<String> ready = new CompletableFuture<>();
        List<String> args = lock.length == 0 ? List.of(url) : List.of(url, lock[0]);
        ForkedJava child = ForkedJava.start(H2FileHolder.class.getName(), List.of(), args, line -> {
            if (line.startsWith("ready")) {
                ready.complete(line);
            }
        });
        try {
            Await.result(ready, KitTime.COLD_START);
        } catch (Exception | AssertionError e) {
            child.close();
            throw new AssertionError("the holder did not open " + url + ": " + child.stderrTail(), e);
        }
        return child;
    }

    @Test
    void aFileDatabaseOpenInAnotherProcessSaysSoAndNamesAutoServer() throws Exception {
        String url = "jdbc:h2:" + dir.resolve("locks");
        try (ForkedJava other = holder(url);
                LockClient client = Baton.connect(url, OPTIONS)) {
            assertThatThrownBy(() -> client.lock("in-use").acquire(KitTime.grant(OPTIONS.operationTimeout())))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("'in-use'")
                    .hasMessageContaining("the database file is in use by another process")
                    .hasMessageContaining("AUTO_SERVER=TRUE")
                    .hasMessageContaining("[SQLState 90020: Database may be already in use")
                    .hasMessageNotContaining("pool");
        }
    }

    @Test
    void twoProcessesShareAFileDatabaseWithAutoServer() throws Exception {
        String url = "jdbc:h2:" + dir.resolve("shared") + ";AUTO_SERVER=TRUE";
        String name = "shared-" + UUID.randomUUID();
        try (ForkedJava other = holder(url, name);
                LockClient client = Baton.connect(url, OPTIONS)) {
            assertThat(client.lock(name).tryAcquire())
                    .as("the other process holds it")
                    .isEmpty();
            other.closeInput();
            try (Lease lease = client.lock(name)
                    .acquire(KitTime.bound(OPTIONS.operationTimeout().plus(KitTime.TAKE_OVER)))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void wrongCredentialsSaySoWithTheDriversReason() throws Exception {
        String url = "jdbc:h2:mem:creds-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (Connection owner = DriverManager.getConnection(url, "sa", "right");
                LockClient client = Baton.connect(url + ";USER=sa;PASSWORD=wrong", OPTIONS)) {
            assertThatThrownBy(() -> client.lock("creds").acquire(KitTime.grant(OPTIONS.operationTimeout())))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("authentication failed: the database rejected the user name or password")
                    .hasMessageContaining("Wrong user name or password")
                    .hasMessageNotContaining("wrong;")
                    .hasMessageNotContaining("pool");
        }
    }

    @Test
    void aDatabaseThatDoesNotExistSaysSo() {
        String url = "jdbc:h2:" + dir.resolve("missing") + ";IFEXISTS=TRUE";
        try (LockClient client = Baton.connect(url, OPTIONS)) {
            assertThatThrownBy(() -> client.lock("missing").acquire(KitTime.grant(OPTIONS.operationTimeout())))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("the database does not exist")
                    .hasMessageContaining("[SQLState 90146")
                    .hasMessageNotContaining("pool");
        }
    }
}
