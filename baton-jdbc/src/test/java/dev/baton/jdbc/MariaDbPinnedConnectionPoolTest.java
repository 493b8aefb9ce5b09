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
import dev.baton.LockException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.servers.MariaDbServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The strategies that pin a connection for the lease (advisory, pessimistic) on MariaDB, used with an
 * application's HikariCP pool, so the next borrower gets exactly the connection the lock used: it
 * must come back without a named lock, an open transaction or a changed {@code wait_timeout}, however
 * the lease or the wait ended.
 */
class MariaDbPinnedConnectionPoolTest {
    private static MariaDbServer server;

    @BeforeAll
    static void startServer() {
        server = MariaDbServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
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

    /** What the next borrowers find, checked on all {@code size} connections of the pool at once. */
    private static void assertAllClean(HikariDataSource pool, int size, String table, List<String> names)
            throws SQLException {
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                borrowed.add(pool.getConnection());
            }
            for (Connection c : borrowed) {
                assertClean(c, table, names);
            }
        } finally {
            for (Connection c : borrowed) {
                c.close();
            }
        }
    }

    private static void assertClean(Connection c, String table, List<String> names) throws SQLException {
        assertThat(c.getAutoCommit()).as("auto-commit restored").isTrue();
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        """
                        SELECT @@in_transaction, @@session.wait_timeout = @@global.wait_timeout, DATABASE()""")) {
            rs.next();
            assertThat(rs.getLong(1))
                    .as("an open transaction in the borrowed session")
                    .isZero();
            assertThat(rs.getBoolean(2)).as("wait_timeout restored").isTrue();
            String namespace = rs.getString(3) + "." + table;
            for (String name : names) {
                try (PreparedStatement ps = c.prepareStatement("SELECT IS_USED_LOCK(?)")) {
                    ps.setString(1, AdvisoryKeys.serverName(namespace, name));
                    try (ResultSet used = ps.executeQuery()) {
                        used.next();
                        assertThat(used.getObject(1))
                                .as("named lock %s still held", name)
                                .isNull();
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"advisory", "pessimistic"})
    void aReleasedOrClosedLeaseLeavesThePooledConnectionClean(String strategy) throws Exception {
        String table = "pinned_" + strategy;
        List<String> names = List.of("job", "left-held");
        try (HikariDataSource pool = pool(1)) {
            try (LockClient client = JdbcLocks.builder(pool)
                    .strategy(strategy)
                    .table(table)
                    .options(LockOptions.builder()
                            .operationTimeout(Duration.ofSeconds(3))
                            .build())
                    .build()) {
                for (int i = 0; i < 3; i++) {
                    try (Lease lease = client.lock("job").acquire(KitTime.grant())) {
                        assertThat(lease.fencingToken()).isPositive();
                        assertThat(pool.getHikariPoolMXBean().getActiveConnections())
                                .as("the only connection is pinned")
                                .isEqualTo(1);
                    }
                    assertAllClean(pool, 1, table, names);
                }
                client.lock("left-held").acquire(KitTime.grant());
            } // closing the client releases the lease it still holds
            assertAllClean(pool, 1, table, names);
            assertThat(pool.isClosed()).isFalse();
        }
    }

    /** Sessions waiting in GET_LOCK. */
    private static long getLockWaiters() {
        try (Connection admin = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                Statement st = admin.createStatement();
                ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                        + " WHERE INFO LIKE 'SELECT GET_LOCK%' AND ID <> CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * GET_LOCK waiters queue in the server: one that times out or is interrupted (KILL QUERY) leaves
     * no lock and no changed setting on the pool's connections, and a queued waiter gets the lock as
     * soon as the holder releases (the 5 s poll delay could not explain it).
     */
    @Test
    void getLockWaitersQueueInTheServerAndLeaveNothingWhenTheyGiveUp() throws Exception {
        String table = "queued_advisory";
        List<String> names = List.of("job");
        LockOptions slowPolling = LockOptions.builder()
                .operationTimeout(Duration.ofSeconds(3))
                .pollInitialDelay(Duration.ofSeconds(5))
                .pollMaxDelay(Duration.ofSeconds(5))
                .build();
        try (HikariDataSource pool = pool(2);
                LockClient holder =
                        Baton.connect(JdbcFixtures.uri(server, "advisory") + "&table=" + table, slowPolling);
                LockClient waiters = JdbcLocks.builder(pool)
                        .strategy("advisory")
                        .table(table)
                        .options(slowPolling)
                        .build()) {
            Lease held = holder.lock("job").acquire(KitTime.grant());

            assertThatThrownBy(() -> waiters.lock("job").acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("job");
            assertThat(getLockWaiters()).isZero();
            assertThat(held.isValid()).isTrue();

            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            CompletableFuture<Lease> interrupted = inThread(() -> {
                waiterThread.set(Thread.currentThread());
                return waiters.lock("job").acquire();
            });
            awaitCondition("the waiter to wait in GET_LOCK", () -> getLockWaiters() == 1);
            waiterThread.get().interrupt();
            assertThatThrownBy(() -> Await.result(interrupted, KitTime.grant()))
                    .hasCauseInstanceOf(LockException.class)
                    .hasRootCauseInstanceOf(InterruptedException.class);
            awaitCondition("the killed GET_LOCK to end", () -> getLockWaiters() == 0);
            assertThat(held.isValid()).isTrue();

            CompletableFuture<Lease> queued = inThread(() -> waiters.lock("job").acquire(Duration.ofSeconds(30)));
            awaitCondition("the waiter to wait in GET_LOCK", () -> getLockWaiters() == 1);
            KitTime.Stopwatch released = KitTime.stopwatch();
            held.close();
            // Well within the 5 s poll delay, which could not explain it even at the bound's stretch.
            try (Lease lease = Await.result(queued, KitTime.grant())) {
                assertThat(released.millis())
                        .as("hand-over by the server's queue (%s)", released)
                        .isLessThan(released.allows(KitTime.TAKE_OVER).toMillis());
                assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
            }
            assertAllClean(pool, 2, table, names);
        }
    }
}
