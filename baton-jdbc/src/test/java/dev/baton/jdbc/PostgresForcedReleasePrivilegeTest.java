package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.KitTime;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A forced release of a pinned grant ends the holder's session; an operator whose role may not
 * signal the holder's backend gets an error naming the lock, the backend and the privilege, and the
 * holder keeps its lock.
 */
class PostgresForcedReleasePrivilegeTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
    private static final String OPERATOR = "baton_operator";
    private static final String OPERATOR_PASSWORD = "operator-" + UUID.randomUUID();
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.start();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                Statement statement = connection.createStatement()) {
            // A role that may read the lock tables but is neither the holder's role nor in pg_signal_backend.
            statement.execute("CREATE ROLE " + OPERATOR + " LOGIN PASSWORD '" + OPERATOR_PASSWORD + "'");
            statement.execute("GRANT USAGE ON SCHEMA public TO " + OPERATOR);
            statement.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO " + OPERATOR);
            statement.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO " + OPERATOR);
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String uri(String user, String password, String strategy) {
        return server.jdbcUrl() + (server.jdbcUrl().contains("?") ? "&" : "?") + "user=" + encode(user) + "&password="
                + encode(password) + "&strategy=" + strategy + "&advisoryHolders=true";
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Test
    void advisoryHoldersAreRecordedOnlyWhenAskedAndListingSaysHowToAsk() throws Exception {
        String name = "unrecorded-" + UUID.randomUUID();
        String plain = uri(server.user(), server.password(), "advisory").replace("&advisoryHolders=true", "");
        try (LockClient holder = Baton.connect(plain, OPTIONS);
                LockAdmin admin = Baton.admin(plain, OPTIONS);
                Lease lease = holder.lock(name).acquire(KitTime.grant())) {
            assertThatThrownBy(() -> admin.locks(""))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("advisoryHolders=true");
            try (Connection connection =
                            DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                    Statement statement = connection.createStatement();
                    java.sql.ResultSet rows = statement.executeQuery(
                            "SELECT count(*) FROM baton_locks_adv_holders WHERE lock_name = '" + name + "'")) {
                rows.next();
                assertThat(rows.getLong(1))
                        .as("holder rows written without advisoryHolders")
                        .isZero();
            }
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void anOperatorWhoMayNotEndTheHoldersSessionIsToldWhichPrivilegeIsMissing() throws Exception {
        for (String strategy : new String[] {"advisory", "pessimistic"}) {
            String name = "privilege-" + strategy + "-" + UUID.randomUUID();
            try (LockClient holder = Baton.connect(uri(server.user(), server.password(), strategy), OPTIONS);
                    LockAdmin operator = Baton.admin(uri(OPERATOR, OPERATOR_PASSWORD, strategy), OPTIONS);
                    LockAdmin owner = Baton.admin(uri(server.user(), server.password(), strategy), OPTIONS);
                    LockClient next = Baton.connect(uri(server.user(), server.password(), strategy), OPTIONS)) {
                Lease lease = holder.lock(name).acquire(KitTime.grant());
                assertThatThrownBy(() -> operator.forceRelease(name))
                        .as(strategy)
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining(name)
                        .hasMessageContaining("jdbc-" + strategy + " (PostgreSQL)")
                        .hasMessageContaining("pg_terminate_backend")
                        .hasMessageContaining("pg_signal_backend")
                        .hasMessageContaining(strategy.equals("advisory") ? "pg_signal_backend" : "pg_read_all_stats");
                assertThat(lease.isValid()).isTrue();
                assertThat(owner.status(name)).isPresent();

                // The holder's own role may: the session ends and the lock is free at once.
                assertThat(owner.forceRelease(name)).hasSize(1);
                assertThat(next.lock(name).tryAcquire()).hasValueSatisfying(taken -> {
                    assertThat(taken.fencingToken()).as(strategy).isGreaterThan(lease.fencingToken());
                    taken.close();
                });
                lease.close();
            }
        }
    }
}
