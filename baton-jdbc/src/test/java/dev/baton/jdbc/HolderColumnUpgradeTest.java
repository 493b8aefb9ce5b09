package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Holder;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lock tables created by the version before holder descriptions (no {@code holder} column): with
 * createSchema the schema gate adds the column (and fair hand-off's columns) and old rows read as
 * undescribed; without it fair=true is refused with the statements to run, and with fair=false every
 * acquisition works as before, only without descriptions.
 */
class HolderColumnUpgradeTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .operationTimeout(Duration.ofSeconds(5))
            .clientName("upgrade-test")
            .build();

    /** The DDL of the previous version (H2), for the table and optimistic strategies and semaphores. */
    private static final String OLD_PERMITS =
            """
            CREATE TABLE t_semaphores (semaphore_name VARCHAR(512) NOT NULL PRIMARY KEY, permits INT NOT NULL,
              fencing_token BIGINT NOT NULL);
            CREATE TABLE t_permits (semaphore_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              fencing_token BIGINT NOT NULL, expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
              PRIMARY KEY (semaphore_name, owner_id));
            """;

    private static final String OLD_TABLE =
            """
            CREATE TABLE t (lock_name VARCHAR(512) NOT NULL PRIMARY KEY, lock_mode CHAR(1) NOT NULL,
              owner_id VARCHAR(64) NOT NULL, expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
              fencing_token BIGINT NOT NULL);
            CREATE TABLE t_readers (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              expires_at TIMESTAMP WITH TIME ZONE NOT NULL, fencing_token BIGINT NOT NULL,
              PRIMARY KEY (lock_name, owner_id));
            CREATE SEQUENCE t_fencing_seq START WITH 8;
            CREATE TABLE t_waiters (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              place TIMESTAMP WITH TIME ZONE NOT NULL, last_seen TIMESTAMP WITH TIME ZONE NOT NULL,
              PRIMARY KEY (lock_name, owner_id));
            INSERT INTO t VALUES ('old', 'X', '0123456789abcdef0123456789abcdef',
              DATEADD(MINUTE, 5, CURRENT_TIMESTAMP), 7); -- token 7 was drawn from the sequence
            """;

    private static final String OLD_OPTIMISTIC =
            """
            CREATE TABLE t_opt (lock_name VARCHAR(512) NOT NULL PRIMARY KEY, version BIGINT NOT NULL,
              lock_mode CHAR(1) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              expires_at TIMESTAMP WITH TIME ZONE NOT NULL);
            CREATE TABLE t_opt_readers (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              expires_at TIMESTAMP WITH TIME ZONE NOT NULL, fencing_token BIGINT NOT NULL,
              PRIMARY KEY (lock_name, owner_id));
            CREATE TABLE t_opt_waiters (lock_name VARCHAR(512) NOT NULL, owner_id VARCHAR(64) NOT NULL,
              place TIMESTAMP WITH TIME ZONE NOT NULL, last_seen TIMESTAMP WITH TIME ZONE NOT NULL,
              PRIMARY KEY (lock_name, owner_id));
            INSERT INTO t_opt VALUES ('old', 7, 'X', '0123456789abcdef0123456789abcdef',
              DATEADD(MINUTE, 5, CURRENT_TIMESTAMP));
            """;

    /** A fresh in-memory database with the previous version's tables, and one lock held in them. */
    private static String oldDatabase(String strategy) throws SQLException {
        String url = "jdbc:h2:mem:upgrade-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (Connection connection = DriverManager.getConnection(url, "sa", "baton");
                Statement statement = connection.createStatement()) {
            String ddl = OLD_PERMITS + (strategy.equals("table") ? OLD_TABLE : OLD_OPTIMISTIC);
            for (String sql : JdbcSchema.statementsOf(ddl)) {
                statement.execute(sql);
            }
        }
        return url + ";USER=sa;PASSWORD=baton;strategy=" + strategy + ";table=t";
    }

    private static boolean hasHolderColumn(String url, String table) throws SQLException {
        return hasColumn(url, table, "holder");
    }

    private static boolean hasColumn(String url, String table, String column) throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(url.substring(0, url.indexOf(";USER")), "sa", "baton");
                ResultSet columns =
                        connection.getMetaData().getColumns(null, null, table.toUpperCase(), column.toUpperCase())) {
            return columns.next();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "optimistic"})
    void withCreateSchemaTheGateAddsTheColumnAndOldRowsReadAsUndescribed(String strategy) throws Exception {
        String url = oldDatabase(strategy);
        String locks = strategy.equals("table") ? "t" : "t_opt";
        try (LockClient client = Baton.connect(url, OPTIONS);
                LockAdmin admin = Baton.admin(url, OPTIONS)) {
            try (Lease lease = client.lock("new").acquire(KitTime.grant());
                    Lease reader = client.readWriteLock("shared").readLock().acquire(KitTime.grant());
                    Lease permit = client.semaphore("sem", 2).acquire(KitTime.grant())) {
                assertThat(hasHolderColumn(url, locks)).isTrue();
                assertThat(hasHolderColumn(url, "t_permits")).isTrue();
                assertThat(hasColumn(url, locks, "queued"))
                        .as("fair hand-off's column")
                        .isTrue();
                assertThat(hasColumn(url, locks + "_waiters", "lease_ms")).isTrue();
                List<LockInfo> listed = admin.locks("");
                assertThat(listed)
                        .extracting(LockInfo::name, LockInfo::kind)
                        .containsExactly(
                                org.assertj.core.groups.Tuple.tuple("new", LockKind.MUTEX),
                                org.assertj.core.groups.Tuple.tuple("old", LockKind.MUTEX),
                                org.assertj.core.groups.Tuple.tuple("sem", LockKind.PERMIT),
                                org.assertj.core.groups.Tuple.tuple("shared", LockKind.READ));
                assertThat(listed.get(1).holders().get(0).description()).isEmpty();
                for (LockInfo info : List.of(listed.get(0), listed.get(2), listed.get(3))) {
                    assertThat(info.holders().get(0).description())
                            .startsWith("upgrade-test on ")
                            .contains("pid " + ProcessHandle.current().pid());
                }
                assertThat(listed.get(0).fencingToken()).isEqualTo(lease.fencingToken());
                assertThat(listed.get(2).fencingToken()).isEqualTo(permit.fencingToken());
                assertThat(listed.get(3).fencingToken()).isEqualTo(reader.fencingToken());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "optimistic"})
    void withoutCreateSchemaEveryAcquisitionWorksWithoutDescriptions(String strategy) throws Exception {
        String old = oldDatabase(strategy) + ";createSchema=false";
        String locks = strategy.equals("table") ? "t" : "t_opt";
        // Fair (the default) needs the columns of fair hand-off: refused, with the statements to run.
        try (LockClient fair = Baton.connect(old, OPTIONS)) {
            assertThatThrownBy(() -> fair.lock("new").tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("ALTER TABLE " + locks + " ADD COLUMN IF NOT EXISTS queued")
                    .hasMessageContaining("ALTER TABLE " + locks + "_waiters ADD COLUMN IF NOT EXISTS lease_ms")
                    .hasMessageContaining("fair=false");
        }
        String url = old + ";fair=false";
        try (LockClient client = Baton.connect(url, OPTIONS);
                LockAdmin admin = Baton.admin(url, OPTIONS)) {
            try (Lease lease = client.lock("new").acquire(KitTime.grant());
                    Lease reader = client.readWriteLock("shared").readLock().acquire(KitTime.grant());
                    Lease permit = client.semaphore("sem", 2).acquire(KitTime.grant())) {
                assertThat(hasHolderColumn(url, locks)).isFalse();
                assertThat(hasHolderColumn(url, "t_permits")).isFalse();
                List<LockInfo> listed = admin.locks("");
                assertThat(listed).extracting(LockInfo::name).containsExactly("new", "old", "sem", "shared");
                assertThat(listed)
                        .flatExtracting(LockInfo::holders)
                        .extracting(Holder::description)
                        .containsOnly("");
                assertThat(admin.status("new").orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
                assertThat(listed.get(2).fencingToken()).isEqualTo(permit.fencingToken());
                assertThat(listed.get(3).fencingToken()).isEqualTo(reader.fencingToken());
                // A forced release works alike: by owner id.
                assertThat(admin.forceRelease("old"))
                        .extracting(LockInfo::fencingToken)
                        .containsExactly(7L);
                assertThat(client.lock("old").tryAcquire()).hasValueSatisfying(next -> {
                    assertThat(next.fencingToken()).isGreaterThan(7);
                    next.close();
                });
            }
        }
    }
}
