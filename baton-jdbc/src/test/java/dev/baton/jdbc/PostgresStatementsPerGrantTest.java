package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The round trips of a fair grant on PostgreSQL, counted in statements on the calling thread (the
 * line's thread ticks on its own): an attempt that will wait joins the line in the statement that
 * tried, and a release that hands the lock on does it in one statement.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresStatementsPerGrantTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private static DatabaseServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aWaiterJoinsInTheStatementThatTriedAndTheReleaseHandsOnInOne(String strategy) {
        PGSimpleDataSource target = new PGSimpleDataSource();
        target.setURL(server.jdbcUrl());
        target.setUser(server.user());
        target.setPassword(server.password());
        CountingDataSource counting = new CountingDataSource(target);
        try (JdbcLockBackend backend = new JdbcLockBackend(
                Strategy.of(strategy, "test"),
                counting,
                null,
                TableNames.of(
                        "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20)),
                true,
                LockOptions.builder()
                        .operationTimeout(Duration.ofSeconds(5))
                        .fair(true)
                        .build(),
                null,
                false)) {
            String name = "lock-" + UUID.randomUUID();
            // The schema check, and a first wait, which also waits for the client's LISTEN and makes
            // the name one this client met contended.
            Grant held = backend.tryAcquire(request(name, "holder")).orElseThrow();
            backend.waiting(LockKind.MUTEX)
                    .queue()
                    .enter(request(name, "first-waiter"), () -> {})
                    .leave();
            counting.takeRuns();

            WaitQueue.Entry entry = backend.waiting(LockKind.MUTEX).queue().enter(request(name, "waiter"), () -> {});
            assertThat(entry.grantedOnEntry()).isEmpty();
            assertThat(counting.takeRunsOfThisThread())
                    .as("statements of an attempt on a busy lock, met contended, that joins its line")
                    .hasSize(1);

            assertThat(backend.release(held)).isTrue();
            assertThat(counting.takeRunsOfThisThread())
                    .as("statements of a release that hands the lock on")
                    .hasSize(1);
            entry.leave();

            String free = "lock-" + UUID.randomUUID();
            counting.takeRuns();
            backend.release(backend.tryAcquire(request(free, "holder")).orElseThrow());
            backend.waiting(LockKind.MUTEX)
                    .queue()
                    .enter(request(free, "blocking"), () -> {})
                    .grantedOnEntry()
                    .ifPresent(backend::release);
            assertThat(counting.takeRunsOfThisThread())
                    .as("statements of two uncontended pairs, the second a blocking acquire's")
                    .hasSize(4);
        }
    }

    private static LockRequest request(String name, String owner) {
        return LockRequest.builder(name, owner, LockKind.MUTEX, LONG).build();
    }
}
