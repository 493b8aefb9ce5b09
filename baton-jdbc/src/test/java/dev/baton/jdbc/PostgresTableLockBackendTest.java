package dev.baton.jdbc;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.postgresql.ds.PGSimpleDataSource;

/** The table strategy's protocol on a real PostgreSQL server. */
class PostgresTableLockBackendTest extends TableLockBackendTest {
    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    Dialect dialect() {
        return Dialect.POSTGRESQL;
    }

    @Override
    String url(String table, boolean createSchema) {
        return withCredentials(server.password()) + "&strategy=table&table=" + table + "&createSchema=" + createSchema;
    }

    @Override
    String urlWithWrongPassword() {
        return withCredentials("wrong-password");
    }

    private static String withCredentials(String password) {
        String separator = server.jdbcUrl().contains("?") ? "&" : "?";
        return server.jdbcUrl() + separator + "user=" + encode(server.user()) + "&password=" + encode(password);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    DataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(server.jdbcUrl());
        dataSource.setUser(server.user());
        dataSource.setPassword(server.password());
        return dataSource;
    }
}
