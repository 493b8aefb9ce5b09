package dev.baton.servers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The database servers one JVM's test classes share ({@link PostgresServer#sharedDatabase()}, {@link
 * MariaDbServer#sharedDatabase()}), each class in a database of its own: a server is started by its
 * first caller and closed when the JVM exits.
 */
final class SharedDatabases {
    static final SharedDatabases POSTGRES =
            new SharedDatabases(PostgresServer::start, port -> PostgresServer.url(port, ""));
    static final SharedDatabases MARIADB =
            new SharedDatabases(MariaDbServer::start, port -> MariaDbServer.url(port, ""));

    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicInteger databases = new AtomicInteger();
    private final Supplier<? extends DatabaseServer> start;
    private final IntFunction<String> serverUrl;
    private DatabaseServer server; // guarded by lock

    private SharedDatabases(Supplier<? extends DatabaseServer> start, IntFunction<String> serverUrl) {
        this.start = start;
        this.serverUrl = serverUrl;
    }

    /** A new database on the shared server (the external server's own one when an environment variable names it). */
    DatabaseServer database() {
        DatabaseServer shared = server();
        if (shared.external()) {
            return new Database(shared, shared.jdbcUrl());
        }
        String name = "baton_" + databases.incrementAndGet();
        // Connected to the server's own database, as its user (granted baton_* databases).
        try (Connection connection = DriverManager.getConnection(shared.jdbcUrl(), shared.user(), shared.password());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name + " on " + shared + ": " + e, e);
        }
        return new Database(shared, serverUrl.apply(shared.port()) + name);
    }

    private DatabaseServer server() {
        lock.lock();
        try {
            if (server == null) {
                DatabaseServer started = start.get();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "baton-shared-database-stop"));
                server = started;
            }
            return server;
        } finally {
            lock.unlock();
        }
    }

    /** One database on the shared server; closing it leaves the server to the JVM's exit. */
    private record Database(DatabaseServer server, String jdbcUrl) implements DatabaseServer {
        @Override
        public String user() {
            return server.user();
        }

        @Override
        public String password() {
            return server.password();
        }

        @Override
        public String host() {
            return server.host();
        }

        @Override
        public int port() {
            return server.port();
        }

        @Override
        public boolean external() {
            return server.external();
        }

        @Override
        public void close() {}

        @Override
        public String toString() {
            return "a database of the shared " + server + ": " + jdbcUrl;
        }
    }
}
