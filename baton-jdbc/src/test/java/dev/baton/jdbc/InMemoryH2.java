package dev.baton.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/** A private in-memory H2 database for one test class, kept alive by one connection until closed. */
final class InMemoryH2 implements AutoCloseable {
    static final String USER = "sa";
    static final String PASSWORD = "baton";

    final String url;
    private final Connection keepAlive;

    private InMemoryH2(String url) throws SQLException {
        this.url = url;
        this.keepAlive = DriverManager.getConnection(url, USER, PASSWORD);
    }

    /** A new database named {@code prefix-<random>}. */
    static InMemoryH2 open(String prefix) throws SQLException {
        return new InMemoryH2("jdbc:h2:mem:" + prefix + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, USER, PASSWORD);
    }

    /** Shuts the database down, dropping it. */
    @Override
    public void close() throws SQLException {
        keepAlive.createStatement().execute("SHUTDOWN");
        keepAlive.close();
    }
}
