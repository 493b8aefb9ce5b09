package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL tables of the version before the fair hand-off (no {@code queued} on the lock table, no
 * {@code lease_ms} and {@code holder} on the waiters table): with createSchema the schema gate adds
 * the columns and a lock held in the old tables stays held; without it the gate refuses, printing the
 * statements to run, and {@code fair=false} works on the old tables as they are.
 */
class PostgresHandOffUpgradeTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();

    private static final String OLD_WAITERS =
            """
            CREATE TABLE %s_waiters (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              place TIMESTAMP WITH TIME ZONE NOT NULL, last_seen TIMESTAMP WITH TIME ZONE NOT NULL,
              channel VARCHAR(63), PRIMARY KEY (lock_name, owner_id));
            """;

    private static final String OLD_TABLE =
            """
            CREATE TABLE {t} (lock_name VARCHAR(512) NOT NULL PRIMARY KEY, lock_mode CHAR(1) NOT NULL,
              owner_id VARCHAR(64) NOT NULL, expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
              fencing_token BIGINT NOT NULL, holder VARCHAR(120), waiter VARCHAR(63));
            CREATE TABLE {t}_readers (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              expires_at TIMESTAMP WITH TIME ZONE NOT NULL, fencing_token BIGINT NOT NULL, holder VARCHAR(120),
              PRIMARY KEY (lock_name, owner_id));
            CREATE SEQUENCE {t}_fencing_seq START WITH 8;
            INSERT INTO {t} VALUES ('old', 'X', '0123456789abcdef0123456789abcdef',
              clock_timestamp() + INTERVAL '5 minutes', 7, NULL, NULL);
            """
                    + OLD_WAITERS.formatted("{t}");

    private static final String OLD_OPTIMISTIC =
            """
            CREATE TABLE {t}_opt (lock_name VARCHAR(512) NOT NULL PRIMARY KEY, version BIGINT NOT NULL,
              lock_mode CHAR(1) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              expires_at TIMESTAMP WITH TIME ZONE NOT NULL, holder VARCHAR(120), waiter VARCHAR(63));
            CREATE TABLE {t}_opt_readers (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              expires_at TIMESTAMP WITH TIME ZONE NOT NULL, fencing_token BIGINT NOT NULL, holder VARCHAR(120),
              PRIMARY KEY (lock_name, owner_id));
            INSERT INTO {t}_opt VALUES ('old', 7, 'X', '0123456789abcdef0123456789abcdef',
              clock_timestamp() + INTERVAL '5 minutes', NULL, NULL);
            """
                    + OLD_WAITERS.formatted("{t}_opt");

    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** The previous version's tables for the strategy, one lock ("old", token 7) held in them; the table prefix. */
    private static String oldTables(String strategy) throws SQLException {
        String table = "up_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            String ddl = (strategy.equals("table") ? OLD_TABLE : OLD_OPTIMISTIC).replace("{t}", table);
            for (String sql : JdbcSchema.statementsOf(ddl)) {
                statement.execute(sql);
            }
        }
        return table;
    }

    private static String url(String strategy, String table) {
        return JdbcFixtures.uri(server, strategy) + "&table=" + table;
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "optimistic"})
    void withCreateSchemaTheGateAddsTheColumnsAndHandsOff(String strategy) throws Exception {
        String table = oldTables(strategy);
        String locks = strategy.equals("table") ? table : table + "_opt";
        try (LockClient holder = Baton.connect(url(strategy, table), OPTIONS);
                LockClient waiter = Baton.connect(url(strategy, table), OPTIONS)) {
            assertThat(holder.lock("old").tryAcquire())
                    .as("the old grant stays held")
                    .isEmpty();
            assertThat(hasColumn(locks, "queued")).isTrue();
            assertThat(hasColumn(locks + "_waiters", "lease_ms")).isTrue();
            assertThat(hasColumn(locks + "_waiters", "holder")).isTrue();

            Lease first = holder.lock("job").acquire(KitTime.grant());
            CompletableFuture<Lease> next =
                    TestThreads.inThread(() -> waiter.lock("job").acquire(Duration.ofSeconds(30)));
            TestThreads.awaitCondition("the waiter is in line", () -> count(locks + "_waiters") == 1);
            first.close();
            try (Lease handed = Await.result(next, Duration.ofSeconds(10))) {
                assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "optimistic"})
    void withoutCreateSchemaTheGateRefusesWithTheStatementsAndFairFalseWorks(String strategy) throws Exception {
        String table = oldTables(strategy);
        String locks = strategy.equals("table") ? table : table + "_opt";
        try (LockClient client = Baton.connect(url(strategy, table) + "&createSchema=false", OPTIONS)) {
            assertThatThrownBy(() -> client.lock("job").tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("ALTER TABLE " + locks + " ADD COLUMN IF NOT EXISTS queued")
                    .hasMessageContaining("ALTER TABLE " + locks + "_waiters ADD COLUMN IF NOT EXISTS lease_ms")
                    .hasMessageContaining("fair=false");
        }
        assertThat(hasColumn(locks, "queued")).isFalse();
        try (LockClient barging = Baton.connect(url(strategy, table) + "&createSchema=false&fair=false", OPTIONS)) {
            Optional<Lease> lease = barging.lock("job").tryAcquire();
            assertThat(lease).isPresent();
            lease.get().close();
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }

    private static boolean hasColumn(String table, String column) throws SQLException {
        try (Connection connection = connect();
                ResultSet columns = connection.getMetaData().getColumns(null, null, table, column)) {
            return columns.next();
        }
    }

    private static int count(String table) {
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
