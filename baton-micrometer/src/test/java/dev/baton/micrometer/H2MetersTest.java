package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.tck.KitTime;
import io.micrometer.core.instrument.Timer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The meters on the JDBC table strategy over an in-process H2 database. */
class H2MetersTest extends BatonMetersContract {
    private static final String DATABASE = "jdbc:h2:mem:meters-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static final String USER = "sa";
    private static final String PASSWORD = "baton";
    private static final String TABLE = "meter_locks";
    private static Connection outside;

    @BeforeAll
    static void createDatabase() throws SQLException {
        // The first connection creates the in-memory database with these credentials and keeps it.
        outside = DriverManager.getConnection(DATABASE, USER, PASSWORD);
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        try (Statement statement = outside.createStatement()) {
            statement.execute("SHUTDOWN");
        }
        outside.close();
    }

    @Test
    void anAcquireTheBackendRefusesIsFailed() {
        // A database without the lock table, which the client may not create: every attempt fails.
        String empty = "jdbc:h2:mem:empty-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;createSchema=false";
        LockClient client = connect(empty, BatonMeters.builder(registry).build());
        assertThatThrownBy(() -> client.lock(name).acquire(KitTime.grant()))
                .isInstanceOf(LockConfigurationException.class);
        assertThatThrownBy(() -> client.lock(name).tryAcquire()).isInstanceOf(LockConfigurationException.class);
        Timer failed = registry.get("baton.lock.wait").tag("outcome", "failed").timer();
        assertThat(failed.count()).isEqualTo(2);
        assertThat(registry.find("baton.lock.wait").tag("outcome", "acquired").timer())
                .isNull();
        assertThat(registry.find("baton.lock.waiting").gauge())
                .as("a call that fails at its first attempt never waited")
                .isNull();
    }

    @Override
    String uri() {
        return DATABASE + ";USER=" + USER + ";PASSWORD=" + PASSWORD + ";strategy=table;table=" + TABLE;
    }

    @Override
    void deleteFromOutside(String lock) {
        try (PreparedStatement delete = outside.prepareStatement("DELETE FROM " + TABLE + " WHERE lock_name = ?")) {
            delete.setString(1, lock);
            if (delete.executeUpdate() != 1) {
                throw new AssertionError("no row of " + lock + " in " + TABLE);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
