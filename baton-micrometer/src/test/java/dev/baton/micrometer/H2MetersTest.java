package dev.baton.micrometer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
