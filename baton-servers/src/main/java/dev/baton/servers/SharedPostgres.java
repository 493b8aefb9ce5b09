package dev.baton.servers;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The PostgreSQL server one JVM's test classes share ({@link PostgresServer#sharedDatabase()}), each
 * in a database of its own: started by the first caller, closed when the JVM exits.
 */
final class SharedPostgres {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static PostgresServer server; // guarded by LOCK

    private SharedPostgres() {}

    static DatabaseServer database() {
        PostgresServer shared = server();
        if (shared.external()) {
            return new Database(shared, shared.jdbcUrl());
        }
        String name = PostgresServer.DATABASE + "_" + DATABASES.incrementAndGet();
        Postmaster.createDatabase(shared.port(), name);
        return new Database(shared, PostgresServer.url(shared.port(), name));
    }

    private static PostgresServer server() {
        LOCK.lock();
        try {
            if (server == null) {
                PostgresServer started = PostgresServer.start();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "baton-shared-postgres-stop"));
                server = started;
            }
            return server;
        } finally {
            LOCK.unlock();
        }
    }

    /** One database on the shared server; closing it leaves the server to the JVM's exit. */
    private record Database(PostgresServer server, String jdbcUrl) implements DatabaseServer {
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
