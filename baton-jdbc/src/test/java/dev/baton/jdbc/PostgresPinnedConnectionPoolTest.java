package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.servers.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }

    /** What the next borrower of the pool's connection finds. */
    private static void assertClean(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement();
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
                    try (Lease lease = client.lock("job").acquire(Duration.ofSeconds(5))) {
                        assertThat(lease.fencingToken()).isPositive();
                        // The only connection is pinned: another lock cannot even borrow one.
                        assertThat(pool.getHikariPoolMXBean().getActiveConnections())
                                .isEqualTo(1);
                    }
                    assertClean(pool);
                }
                try (Lease read = client.readWriteLock("shared").readLock().acquire(Duration.ofSeconds(5))) {
                    assertThat(read.isValid()).isTrue();
                }
                assertClean(pool);
                client.lock("left-held").acquire(Duration.ofSeconds(5));
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
            Lease lease = client.lock("job").acquire(Duration.ofSeconds(5));
            java.util.concurrent.CompletableFuture<Object> lost = new java.util.concurrent.CompletableFuture<>();
            lease.onLost(lost::complete);
            try (Connection admin =
                            java.sql.DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                    Statement st = admin.createStatement()) {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
                        + " AND datname = current_database() AND backend_type = 'client backend'");
            }
            assertThat(lost.get(10, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
            lease.close();
            try (Lease again = client.lock("job").acquire(Duration.ofSeconds(10))) {
                assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
            }
            assertClean(pool);
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
