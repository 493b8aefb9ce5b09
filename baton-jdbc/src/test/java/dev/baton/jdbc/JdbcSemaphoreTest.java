package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.MariaDbServer;
import dev.baton.servers.PostgresServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockKind;
import dev.baton.spi.LockRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Semaphores ({@link JdbcPermits}) through the public API on real databases: H2 (table, optimistic)
 * for everything, and every strategy on PostgreSQL and MariaDB for the bound on holders and the
 * batched renewal of locks and permits together. Each target uses a table prefix of its own.
 */
class JdbcSemaphoreTest {
    private static final String H2 = "jdbc:h2:mem:sem-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static PostgresServer postgres;
    private static MariaDbServer mariadb;
    private static Connection keepH2;

    /** One strategy on one database, with its table prefix. */
    record Target(String label, String strategy, DatabaseServer server) {
        String table() {
            return "sem_" + strategy + (server == null ? "_h2" : server instanceof PostgresServer ? "_pg" : "_maria");
        }

        String uri() {
            if (server == null) {
                return H2 + ";USER=sa;PASSWORD=;strategy=" + strategy + ";table=" + table();
            }
            return JdbcFixtures.uri(server, strategy) + "&table=" + table();
        }

        Connection admin() throws SQLException {
            return server == null
                    ? DriverManager.getConnection(H2, "sa", "")
                    : DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
        }

        @Override
        public String toString() {
            return label;
        }
    }

    @BeforeAll
    static void start() throws SQLException {
        keepH2 = DriverManager.getConnection(H2, "sa", "");
        postgres = PostgresServer.start();
        mariadb = MariaDbServer.start();
    }

    @AfterAll
    static void stop() throws SQLException {
        keepH2.close();
        if (postgres != null) {
            postgres.close();
        }
        if (mariadb != null) {
            mariadb.close();
        }
    }

    static Stream<Target> h2() {
        return Stream.of(new Target("table on H2", "table", null), new Target("optimistic on H2", "optimistic", null));
    }

    static Stream<Target> every() {
        return Stream.concat(
                h2(),
                Stream.of(
                        new Target("table on PostgreSQL", "table", postgres),
                        new Target("optimistic on PostgreSQL", "optimistic", postgres),
                        new Target("pessimistic on PostgreSQL", "pessimistic", postgres),
                        new Target("advisory on PostgreSQL", "advisory", postgres),
                        new Target("optimistic on MariaDB", "optimistic", mariadb),
                        new Target("pessimistic on MariaDB", "pessimistic", mariadb),
                        new Target("advisory on MariaDB", "advisory", mariadb)));
    }

    private static LockOptions options(Duration lease, boolean autoRenew) {
        return LockOptions.builder()
                .leaseTime(lease)
                .autoRenew(autoRenew)
                .operationTimeout(Duration.ofSeconds(5))
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
    }

    private static String name() {
        return "s-" + UUID.randomUUID();
    }

    @ParameterizedTest
    @MethodSource("every")
    void neverMoreThanFourHoldersAcrossEightThreadsOnThreeClients(Target target) throws Exception {
        String name = name();
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                clients.add(Baton.connect(target.uri(), options(Duration.ofSeconds(30), true)));
            }
            AtomicInteger holders = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            List<CompletableFuture<List<Long>>> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                DistributedSemaphore semaphore = clients.get(t % 3).semaphore(name, 4);
                threads.add(TestThreads.inThread(() -> {
                    List<Long> tokens = new ArrayList<>();
                    for (int round = 0; round < 6; round++) {
                        try (Lease lease = semaphore.acquire(WAIT)) {
                            most.accumulateAndGet(holders.incrementAndGet(), Math::max);
                            tokens.add(lease.fencingToken());
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // the work
                            holders.decrementAndGet();
                        }
                    }
                    return tokens;
                }));
            }
            List<Long> all = new ArrayList<>();
            for (CompletableFuture<List<Long>> thread : threads) {
                List<Long> tokens = thread.get(60, TimeUnit.SECONDS);
                assertThat(tokens)
                        .as("one thread's tokens, in the order granted")
                        .isSorted();
                all.addAll(tokens);
            }
            assertThat(most.get()).as("most holders at once").isBetween(1, 4);
            assertThat(new HashSet<>(all)).as("distinct tokens").hasSize(48);
            assertThat(permitRows(target, name))
                    .as("rows left after every release")
                    .isZero();
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    @ParameterizedTest
    @MethodSource("every")
    void locksAndPermitsAreRenewedTogetherAndALostPermitIsToldApart(Target target) throws Exception {
        try (LockBackend backend =
                new JdbcLockBackendProvider().create(target.uri(), options(Duration.ofSeconds(30), true))) {
            String name = name();
            Duration lease = Duration.ofSeconds(30);
            Grant lock = backend.tryAcquire(new LockRequest(name, owner(), LockKind.MUTEX, lease))
                    .orElseThrow();
            Grant first = backend.tryAcquire(new LockRequest(name, owner(), LockKind.PERMIT, lease, 2))
                    .orElseThrow();
            Grant second = backend.tryAcquire(new LockRequest(name, owner(), LockKind.PERMIT, lease, 2))
                    .orElseThrow();
            assertThat(backend.tryAcquire(new LockRequest(name, owner(), LockKind.PERMIT, lease, 2)))
                    .as("a third permit of two, although a lock of the same name is held too")
                    .isEmpty();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

            List<Grant> mixed = List.of(first, lock, second);
            assertThat(backend.renewAll(mixed, lease))
                    .allSatisfy(renewed -> assertThat(renewed).isPresent());

            assertThat(backend.release(first)).isTrue();
            List<Optional<Grant>> afterRelease = backend.renewAll(mixed, lease);
            assertThat(afterRelease.get(0)).as("the released permit").isEmpty();
            assertThat(afterRelease.get(1)).as("the lock").isPresent();
            assertThat(afterRelease.get(2)).as("the other permit").isPresent();
            assertThat(backend.release(first)).as("released twice").isFalse();
            assertThat(backend.release(second)).isTrue();
            assertThat(backend.release(lock)).isTrue();
        }
    }

    @ParameterizedTest
    @MethodSource("h2")
    void tokensIncreaseAndASemaphoreAndALockOfTheSameNameNeverMeet(Target target) {
        String name = name();
        try (LockClient client = Baton.connect(target.uri(), options(Duration.ofSeconds(30), true))) {
            DistributedSemaphore semaphore = client.semaphore(name, 1);
            try (Lease lock = client.lock(name).acquire(WAIT);
                    Lease permit = semaphore.tryAcquire().orElseThrow()) {
                assertThat(semaphore.tryAcquire()).as("the only permit is held").isEmpty();
                long token = permit.fencingToken();
                permit.close();
                try (Lease next = semaphore.tryAcquire().orElseThrow()) {
                    assertThat(next.fencingToken()).isGreaterThan(token);
                }
                assertThat(lock.isValid()).isTrue();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("h2")
    void aPermitThatIsNotRenewedComesBackAfterItsLease(Target target) throws Exception {
        String name = name();
        Duration lease = Duration.ofMillis(400);
        try (LockClient crashed = Baton.connect(target.uri(), options(lease, false));
                LockClient other = Baton.connect(target.uri(), options(lease, true))) {
            Lease first = crashed.semaphore(name, 2).acquire(WAIT);
            Lease second = crashed.semaphore(name, 2).acquire(WAIT);
            assertThat(other.semaphore(name, 2).tryAcquire()).isEmpty();
            try (Lease back = other.semaphore(name, 2).acquire(WAIT)) {
                assertThat(back.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
                assertThat(first.isValid() && second.isValid())
                        .as("both not renewed")
                        .isFalse();
            }
            first.close(); // lost leases: closing must not throw
            second.close();
        }
    }

    @ParameterizedTest
    @MethodSource("h2")
    void renewalKeepsAPermitPastThreeLeaseTimes(Target target) {
        String name = name();
        Duration lease = Duration.ofMillis(300);
        try (LockClient holder = Baton.connect(target.uri(), options(lease, true));
                LockClient other = Baton.connect(target.uri(), options(lease, true))) {
            Lease held = holder.semaphore(name, 1).acquire(WAIT);
            long start = System.nanoTime();
            while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(lease.toMillis() * 3 + 200)) {
                assertThat(held.isValid()).isTrue();
                assertThat(other.semaphore(name, 1).tryAcquire())
                        .as("held past its lease by renewal")
                        .isEmpty();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            held.close();
            assertThat(other.semaphore(name, 1).tryAcquire()).isPresent().get().satisfies(Lease::close);
        }
    }

    @ParameterizedTest
    @MethodSource("h2")
    void aMismatchedCountFailsNamingBothCountsAndTheFix(Target target) {
        String name = name();
        try (LockClient client = Baton.connect(target.uri(), options(Duration.ofSeconds(30), true))) {
            client.semaphore(name, 3).tryAcquire().orElseThrow().close();
            assertThatThrownBy(() -> client.semaphore(name, 4).acquire(WAIT))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining(client.backendName())
                    .hasMessageContaining("has 3 permits")
                    .hasMessageContaining("asks for 4")
                    .hasMessageContaining("UPDATE " + target.table() + "_semaphores SET permits = 4");
            assertThat(permitRows(target, name)).isZero();
        }
    }

    @ParameterizedTest
    @MethodSource("h2")
    void aWaiterThatTimesOutLeavesNothingBehind(Target target) {
        String name = name();
        try (LockClient holder = Baton.connect(target.uri(), options(Duration.ofSeconds(30), true));
                LockClient waiter = Baton.connect(target.uri(), options(Duration.ofSeconds(30), true))) {
            try (Lease held = holder.semaphore(name, 1).acquire(WAIT)) {
                assertThatThrownBy(() -> waiter.semaphore(name, 1).acquire(Duration.ofMillis(150)))
                        .isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining(name);
                assertThat(permitRows(target, name)).as("the holder's row only").isEqualTo(1);
            }
            assertThat(permitRows(target, name)).isZero();
        }
    }

    private static String owner() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** Rows in the target's permits table for {@code name}, read directly. */
    private static int permitRows(Target target, String name) {
        try (Connection admin = target.admin();
                PreparedStatement ps = admin.prepareStatement(
                        "SELECT COUNT(*) FROM " + target.table() + "_permits WHERE semaphore_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
