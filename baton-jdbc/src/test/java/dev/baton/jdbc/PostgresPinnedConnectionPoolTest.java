package dev.baton.jdbc;

import static dev.baton.jdbc.TestThreads.awaitCondition;
import static dev.baton.jdbc.TestThreads.inThread;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The strategies that pin a connection for the lease (advisory, pessimistic), used with an
 * application's HikariCP pool of ONE connection, so the next borrower gets exactly the connection
 * the lock used: it must come back without an advisory lock, an open transaction, a row lock or a
 * changed session setting, however the lease ended.
 */
class PostgresPinnedConnectionPoolTest {
    private static PostgresServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static HikariDataSource onePool() {
        return pool(1);
    }

    private static HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }

    /** What the next borrower of the pool's connection finds. */
    private static void assertClean(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection()) {
            assertClean(c);
        }
    }

    /** What the next borrowers find, checked on all {@code size} connections of the pool at once. */
    private static void assertAllClean(HikariDataSource pool, int size) throws SQLException {
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                borrowed.add(pool.getConnection());
            }
            for (Connection c : borrowed) {
                assertClean(c);
            }
        } finally {
            for (Connection c : borrowed) {
                c.close();
            }
        }
    }

    private static void assertClean(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        """
                        SELECT (SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid()
                                  AND locktype IN ('advisory', 'tuple', 'transactionid')),
                               txid_current_if_assigned(),
                               current_setting('idle_session_timeout'),
                               current_setting('idle_in_transaction_session_timeout'),
                               current_setting('lock_timeout')""")) {
            assertThat(c.getAutoCommit()).as("auto-commit restored").isTrue();
            rs.next();
            assertThat(rs.getLong(1)).as("locks held by the borrowed session").isZero();
            assertThat(rs.getObject(2))
                    .as("an open transaction with a transaction id")
                    .isNull();
            assertThat(rs.getString(3)).isEqualTo("0");
            assertThat(rs.getString(4)).isEqualTo("0");
            assertThat(rs.getString(5)).isEqualTo("0");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"advisory", "pessimistic"})
    void aReleasedOrClosedLeaseLeavesThePooledConnectionClean(String strategy) throws Exception {
        try (HikariDataSource pool = onePool()) {
            LockOptions options = LockOptions.builder()
                    .operationTimeout(Duration.ofSeconds(3))
                    .build();
            try (LockClient client = JdbcLocks.builder(pool)
                    .strategy(strategy)
                    .table("pinned_" + strategy)
                    .options(options)
                    .build()) {
                for (int i = 0; i < 3; i++) {
                    try (Lease lease = client.lock("job").acquire(KitTime.grant())) {
                        assertThat(lease.fencingToken()).isPositive();
                        // The only connection is pinned: another lock cannot even borrow one.
                        assertThat(pool.getHikariPoolMXBean().getActiveConnections())
                                .isEqualTo(1);
                    }
                    assertClean(pool);
                }
                try (Lease read = client.readWriteLock("shared").readLock().acquire(KitTime.grant())) {
                    assertThat(read.isValid()).isTrue();
                }
                assertClean(pool);
                client.lock("left-held").acquire(KitTime.grant());
            } // closing the client releases the lease it still holds
            assertClean(pool);
            assertThat(pool.isClosed())
                    .as("the client leaves the application's pool open")
                    .isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"advisory", "pessimistic"})
    void aLeaseWhoseSessionWasKilledIsLostAndThePoolRecovers(String strategy) throws Exception {
        try (HikariDataSource pool = onePool();
                LockClient client = JdbcLocks.builder(pool)
                        .strategy(strategy)
                        .table("killed_" + strategy)
                        .options(LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(1))
                                .build())
                        .build()) {
            Lease lease = client.lock("job").acquire(KitTime.grant());
            java.util.concurrent.CompletableFuture<Object> lost = new java.util.concurrent.CompletableFuture<>();
            lease.onLost(lost::complete);
            try (Connection admin =
                            java.sql.DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                    Statement st = admin.createStatement()) {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
                        + " AND datname = current_database() AND backend_type = 'client backend'");
            }
            assertThat(Await.result(lost, KitTime.bound(Duration.ofSeconds(1)))).isNotNull();
            lease.close();
            try (Lease again = client.lock("job").acquire(KitTime.grant())) {
                assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
            }
            assertClean(pool);
        }
    }

    /** Sessions queued for an advisory lock inside the database. */
    private static long advisoryWaiters() {
        try (Connection admin = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                Statement st = admin.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Advisory waiters queue in PostgreSQL (pg_advisory_lock bounded by lock_timeout), not by polling:
     * one that times out or is interrupted leaves no lock, no queue entry and no open transaction on
     * the pool's connections, and a queued waiter gets the lock as soon as the holder releases (the
     * 5 s poll delay could not explain it).
     */
    @Test
    void advisoryWaitersQueueInTheDatabaseAndLeaveNothingWhenTheyGiveUp() throws Exception {
        LockOptions slowPolling = LockOptions.builder()
                .operationTimeout(Duration.ofSeconds(3))
                .pollInitialDelay(Duration.ofSeconds(5))
                .pollMaxDelay(Duration.ofSeconds(5))
                .build();
        try (HikariDataSource pool = pool(2);
                LockClient holder =
                        Baton.connect(JdbcFixtures.uri(server, "advisory") + "&table=queued_advisory", slowPolling);
                LockClient waiters = JdbcLocks.builder(pool)
                        .strategy("advisory")
                        .table("queued_advisory")
                        .options(slowPolling)
                        .build()) {
            Lease held = holder.lock("job").acquire(KitTime.grant());

            assertThatThrownBy(() -> waiters.lock("job").acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("job");
            assertThat(advisoryWaiters()).isZero();
            assertAllClean(pool, 2);

            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            CompletableFuture<Lease> interrupted = inThread(() -> {
                waiterThread.set(Thread.currentThread());
                return waiters.lock("job").acquire();
            });
            awaitCondition("the waiter to queue in pg_advisory_lock", () -> advisoryWaiters() == 1);
            waiterThread.get().interrupt();
            assertThatThrownBy(() -> Await.result(interrupted, KitTime.grant()))
                    .hasCauseInstanceOf(LockException.class)
                    .hasRootCauseInstanceOf(InterruptedException.class);
            assertThat(advisoryWaiters())
                    .as("the cancelled wait left the queue")
                    .isZero();
            assertAllClean(pool, 2);
            assertThat(held.isValid()).isTrue();

            CompletableFuture<Lease> queued = inThread(() -> waiters.lock("job").acquire(Duration.ofSeconds(30)));
            awaitCondition("the waiter to queue in pg_advisory_lock", () -> advisoryWaiters() == 1);
            KitTime.Stopwatch released = KitTime.stopwatch();
            held.close();
            // Well within the 5 s poll delay, which could not explain it even at the bound's stretch.
            try (Lease lease = Await.result(queued, KitTime.grant())) {
                assertThat(released.millis())
                        .as("hand-over by the database's queue (%s)", released)
                        .isLessThan(released.allows(KitTime.TAKE_OVER).toMillis());
                assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
            }
            assertAllClean(pool, 2);
        }
    }

    /**
     * Baton's own pool (40 connections for the pinning strategies) with every connection pinned by a
     * held lease: the next acquire says that the pool was exhausted, and only then does a message
     * speak of the pool.
     */
    @Test
    void anExhaustedPoolSaysSoAndWhy() {
        String url =
                server.jdbcUrl() + "?user=" + server.user() + "&password=" + server.password() + "&strategy=advisory";
        List<Lease> held = new ArrayList<>();
        try (LockClient client = Baton.connect(
                url,
                LockOptions.builder().operationTimeout(Duration.ofSeconds(1)).build())) {
            for (int i = 0; i < 40; i++) {
                held.add(client.lock("pinned-" + i).acquire(KitTime.grant(Duration.ofSeconds(1))));
            }
            assertThatThrownBy(() -> client.lock("one-more").tryAcquire())
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("'one-more'")
                    .hasMessageContaining("all 40 connections of the pool baton-")
                    .hasMessageContaining("each held lease keeps one");
            held.forEach(Lease::close);
            try (Lease lease = client.lock("one-more").acquire(KitTime.grant(Duration.ofSeconds(1)))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void strategiesRefuseDatabasesTheyDoNotSupportOnFirstUse() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:pinned;DB_CLOSE_DELAY=-1");
        try (LockClient client = JdbcLocks.builder(h2).strategy("advisory").build()) {
            assertThatThrownBy(() -> client.lock("job").tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("job")
                    .hasMessageContaining("advisory strategy does not support H2");
        }
        assertThatThrownBy(() -> JdbcLocks.builder(h2).strategy("nope"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("strategy 'nope'");
    }
}
