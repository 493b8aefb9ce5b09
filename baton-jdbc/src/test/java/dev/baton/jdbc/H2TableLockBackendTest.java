package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The table strategy's protocol on an in-process H2 database. */
class H2TableLockBackendTest extends TableLockBackendTest {
    private static final String DATABASE = "jdbc:h2:mem:baton-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static final String USER = "sa";
    private static final String PASSWORD = "baton";
    private static Connection keepAlive;

    @BeforeAll
    static void createDatabase() throws SQLException {
        // The first connection creates the in-memory database with these credentials.
        keepAlive = DriverManager.getConnection(DATABASE, USER, PASSWORD);
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        try (Statement statement = keepAlive.createStatement()) {
            statement.execute("SHUTDOWN");
        }
        keepAlive.close();
    }

    @Test
    void createSchemaFalseOnAnEmptyDatabasePrintsTheDdl() {
        String empty = "jdbc:h2:mem:empty-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (LockClient client = Baton.connect(empty + ";createSchema=false", OPTIONS)) {
            assertThatThrownBy(() -> client.lock("x").tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("jdbc-table (H2)")
                    .hasMessageContaining("createSchema is false")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS baton_locks (")
                    .hasMessageContaining("CREATE TABLE IF NOT EXISTS baton_locks_readers (")
                    .hasMessageContaining("CREATE SEQUENCE IF NOT EXISTS baton_locks_fencing_seq;");
        }
        try (LockClient client = Baton.connect(empty, OPTIONS)) {
            assertThat(client.lock("x").tryAcquire())
                    .as("the default creates the tables")
                    .hasValueSatisfying(
                            lease -> assertThat(lease.fencingToken()).isPositive());
        }
    }

    @Test
    void aTableDroppedInUseIsNotCreatedAgainAndTheFailureNamesItsDdl() throws SQLException {
        String table = "dropped_" + UUID.randomUUID().toString().substring(0, 8);
        try (LockClient client = Baton.connect(url(table, true), OPTIONS)) {
            client.lock("x").tryAcquire().orElseThrow().close();
            try (Statement statement = keepAlive.createStatement()) {
                statement.execute("DROP TABLE " + table);
            }
            for (int call = 1; call <= 2; call++) {
                assertThatThrownBy(() -> client.lock("y").tryAcquire())
                        .as("call %d after the drop", call)
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("does not create them again")
                        .hasMessageContaining("run this DDL:\n")
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + " (");
            }
        }
    }

    @Override
    Dialect dialect() {
        return Dialect.H2;
    }

    @Override
    String url(String table, boolean createSchema) {
        return DATABASE + ";USER=" + USER + ";PASSWORD=" + PASSWORD + ";strategy=table;table=" + table
                + ";createSchema=" + createSchema;
    }

    @Override
    String urlWithWrongPassword() {
        return DATABASE + ";USER=" + USER + ";PASSWORD=wrong-password";
    }

    @Override
    DataSource dataSource() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(DATABASE);
        dataSource.setUser(USER);
        dataSource.setPassword(PASSWORD);
        return dataSource;
    }
}
