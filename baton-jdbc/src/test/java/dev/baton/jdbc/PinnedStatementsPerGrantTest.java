package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.ReconnectingPool;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.MariaDbServer;
import dev.baton.servers.PostgresServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The statements of the pinning strategies, counted as they reach the driver, on a pool of Baton's
 * own: an uncontended pair (a try and its release) and a contended grant (a blocking acquire that
 * found the lock busy and got it when the holder released). On PostgreSQL's advisory locks, a
 * connection whose idle bound is already the lease's is not told it again, nor told to restore it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PinnedStatementsPerGrantTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final String SETS_IDLE = "set_config('idle_session_timeout'";

    private static DatabaseServer postgres;
    private static DatabaseServer mariadb;

    @BeforeAll
    static void startServers() {
        postgres = PostgresServer.sharedDatabase();
        mariadb = MariaDbServer.sharedDatabase();
    }

    @AfterAll
    static void stopServers() {
        postgres.close();
        mariadb.close();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({
        "advisory, postgresql, 1, 1, 2",
        "advisory, mariadb, 4, 2, 5",
        "pessimistic, postgresql, 2, 0, 3",
        "pessimistic, mariadb, 3, 1, 3"
    })
    void statementsPerUncontendedPairAndPerContendedGrant(
            String strategy, String database, int acquire, int release, int contended) throws Exception {
        DatabaseServer server = database.equals("postgresql") ? postgres : mariadb;
        // Short enough for MariaDB's server-side lock name to show the table (AdvisoryKeys.serverName).
        String table = "pin_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        LockUrl url = LockUrl.parse(JdbcFixtures.uri(server, strategy) + "&table=" + table);
        ReconnectingPool pool =
                new ReconnectingPool(JdbcLockBackendProvider.poolConfig(url, OPTIONS.operationTimeout()));
        CountingDataSource counting = new CountingDataSource(pool::getConnection);
        try (JdbcLockBackend backend = new JdbcLockBackend(
                url.strategy(),
                counting,
                url.dialect(),
                url.tables(),
                url.createSchema(),
                OPTIONS,
                pool,
                url.advisoryHolders())) {
            String name = "n" + UUID.randomUUID().toString().substring(0, 8);
            // The schema check, and the name's first grant (the pessimistic strategy inserts its row).
            assertThat(backend.release(backend.tryAcquire(request(name)).orElseThrow()))
                    .isTrue();
            counting.takeRuns();

            Grant held = backend.tryAcquire(request(name)).orElseThrow();
            List<String> acquired = counting.takeRunsOfThisThread();
            assertThat(backend.release(held)).isTrue();
            List<String> released = counting.takeRunsOfThisThread();
            assertThat(acquired)
                    .as(strategy + " on " + database + ": an uncontended try")
                    .hasSize(acquire);
            assertThat(released)
                    .as(strategy + " on " + database + ": its release")
                    .hasSize(release);
            if (strategy.equals("advisory") && database.equals("postgresql")) {
                assertThat(acquired.get(0))
                        .as("a try on a connection of Baton's own whose idle bound is the lease's already")
                        .doesNotContain(SETS_IDLE);
                assertThat(released.get(0))
                        .as("its release, which leaves the bound for the next grant")
                        .doesNotContain(SETS_IDLE);
            }

            held = backend.tryAcquire(request(name)).orElseThrow();
            counting.takeRuns();
            LockRequest waiting = request(name);
            CompletableFuture<Optional<Grant>> waited = TestThreads.inThread(() -> backend.waiting(LockKind.MUTEX)
                    .blockingWait()
                    .acquire(waiting, KitTime.bound(LONG).toNanos()));
            TestThreads.awaitCondition(
                    strategy + " on " + database + ": the waiter waits in the database's queue",
                    () -> waitsInTheDatabase(server, database, table));
            List<CountingDataSource.Run> ran = new ArrayList<>(counting.takeRuns());
            assertThat(backend.release(held)).isTrue();
            Grant granted = Await.result(waited, KitTime.bound(LONG)).orElseThrow();
            ran.addAll(counting.takeRuns());
            Thread test = Thread.currentThread();
            assertThat(ran.stream().filter(run -> run.thread() != test).map(CountingDataSource.Run::sql))
                    .as(strategy + " on " + database + ": a contended grant (the waiter's and its helper's)")
                    .hasSize(contended);
            assertThat(backend.release(granted)).isTrue();
        }
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, LONG)
                .build();
    }

    /** Whether another session runs a statement on {@code table} that waits for a lock. */
    private static boolean waitsInTheDatabase(DatabaseServer server, String database, String table) {
        String sql = database.equals("postgresql")
                ? "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?"
                : "SELECT count(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE ?"
                        + " AND ID <> CONNECTION_ID()";
        try (Connection db = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                PreparedStatement count = db.prepareStatement(sql)) {
            count.setString(1, "%" + table + "%");
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1) > 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
