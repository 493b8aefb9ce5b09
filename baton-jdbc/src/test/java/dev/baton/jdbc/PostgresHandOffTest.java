package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.jdbc.row.JdbcLine;
import dev.baton.servers.PostgresServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL's fair hand-off ({@code HandOff}, {@link JdbcLine}) at the SPI, as the core drives
 * it: a refused attempt, then a subscription (which joins the line), then attempts after each
 * wake-up, and the subscription closed when the wait ends, granted or not.
 */
class PostgresHandOffTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static PostgresServer server;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        resources.clear();
    }

    /**
     * The release itself makes the head of the line the owner (the row names it the moment release()
     * returns, before its client did anything), wakes it with the grant, and its next attempt returns
     * that grant; the releasing client's immediate re-acquire is refused. Before the hand-off the
     * release only freed the row, so the first assertion failed there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aQueuedWaiterGetsTheGrantFromTheRelease(String strategy) throws Exception {
        String table = table();
        JdbcLockBackend holder = backend(strategy, table);
        JdbcLockBackend other = backend(strategy, table);
        String name = "job";
        Grant first = holder.tryAcquire(request(name)).orElseThrow();

        LockRequest waiting = request(name);
        assertThat(other.tryAcquire(waiting)).isEmpty();
        CountDownLatch woken = new CountDownLatch(1);
        Subscription subscription = InLine.enter(other, waiting, woken::countDown);
        try {
            assertThat(other.tryAcquire(waiting)).as("in line").isEmpty();

            assertThat(holder.release(first)).isTrue();
            assertThat(owner(strategy, table, name))
                    .as("the release wrote the head of the line as the owner")
                    .contains(waiting.ownerId());
            assertThat(holder.tryAcquire(request(name)))
                    .as("the releasing client's immediate re-acquire")
                    .isEmpty();

            TestThreads.awaitWoken("woken by the release", woken);
            Grant handed = other.tryAcquire(waiting).orElseThrow();
            assertThat(handed.ownerId()).isEqualTo(waiting.ownerId());
            assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(other.renew(handed, LEASE))
                    .as("the handed grant is the database's")
                    .isPresent();
        } finally {
            subscription.close();
        }
        assertThat(owner(strategy, table, name))
                .as("the waiter that took its grant keeps it after its wait ended")
                .contains(waiting.ownerId());
    }

    /**
     * A waiter that gives up just after a release handed it the lock (its wait ends before it took the
     * grant) leaves the line, finds its entry gone and releases by owner id, which hands the lock to
     * the next in line: nothing stays held by the waiter that left.
     */
    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aWaiterGivingUpWhileHandedTheLockPassesItOn(String strategy) throws Exception {
        String table = table();
        JdbcLockBackend holder = backend(strategy, table);
        JdbcLockBackend quitter = backend(strategy, table);
        JdbcLockBackend last = backend(strategy, table);
        String name = "job";
        Grant first = holder.tryAcquire(request(name)).orElseThrow();

        LockRequest quitting = request(name);
        assertThat(quitter.tryAcquire(quitting)).isEmpty();
        Subscription quitterLine = InLine.enter(quitter, quitting, () -> {});
        LockRequest next = request(name);
        assertThat(last.tryAcquire(next)).isEmpty();
        CountDownLatch nextWoken = new CountDownLatch(1);
        Subscription nextLine = InLine.enter(last, next, nextWoken::countDown);
        try {
            assertThat(holder.release(first)).isTrue();
            assertThat(owner(strategy, table, name)).as("handed to the head").contains(quitting.ownerId());

            quitterLine.close(); // gives up without taking the grant

            assertThat(owner(strategy, table, name))
                    .as("the waiter that gave up passed the lock on")
                    .contains(next.ownerId());
            TestThreads.awaitWoken("the next in line woken", nextWoken);
            Grant handed = last.tryAcquire(next).orElseThrow();
            assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken() + 1);
            assertThat(last.release(handed)).isTrue();
        } finally {
            nextLine.close();
        }
        assertThat(owner(strategy, table, name)).as("nothing left held").isEmpty();
        assertThat(holder.tryAcquire(request(name))).isPresent();
    }

    /** The same with nobody behind: the lock ends up free. */
    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aWaiterGivingUpWhileHandedTheLockLeavesNothingHeld(String strategy) throws Exception {
        String table = table();
        JdbcLockBackend holder = backend(strategy, table);
        JdbcLockBackend quitter = backend(strategy, table);
        String name = "job";
        Grant first = holder.tryAcquire(request(name)).orElseThrow();
        LockRequest quitting = request(name);
        assertThat(quitter.tryAcquire(quitting)).isEmpty();
        CountDownLatch woken = new CountDownLatch(1);
        Subscription line = InLine.enter(quitter, quitting, woken::countDown);

        assertThat(holder.release(first)).isTrue();
        TestThreads.awaitWoken("handed, and told", woken);
        line.close(); // gave up after the NOTIFY, before its next attempt

        assertThat(owner(strategy, table, name)).as("nothing left held").isEmpty();
        Optional<Grant> again = holder.tryAcquire(request(name));
        assertThat(again).isPresent();
        assertThat(again.get().fencingToken()).isGreaterThan(first.fencingToken() + 1);
    }

    /**
     * A grant the release handed over counts from the hand-off, on the database's clock, not from when
     * the waiter takes it: a waiter that takes it only after its lease ran out on the database (the
     * waiter was stopped, or its thread not scheduled) and another client took the lock over must not
     * get it as a fresh grant, valid for a whole lease beside the new holder. Before the fix, the core
     * got the stored grant, valid for its full lease time from the late attempt.
     */
    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aHandedGrantTakenAfterItsLeaseRanOutOnTheDatabaseIsNotHandedOut(String strategy) throws Exception {
        String table = table();
        JdbcLockBackend holder = backend(strategy, table);
        JdbcLockBackend late = backend(strategy, table);
        JdbcLockBackend next = backend(strategy, table);
        String name = "job";
        Duration lease = Duration.ofSeconds(1);
        Grant first = holder.tryAcquire(request(name, LEASE)).orElseThrow(); // the heir gets its own lease

        LockRequest waiting = request(name, lease);
        assertThat(late.tryAcquire(waiting)).isEmpty();
        CountDownLatch woken = new CountDownLatch(1);
        Subscription subscription = InLine.enter(late, waiting, woken::countDown);
        try {
            assertThat(late.tryAcquire(waiting)).as("in line").isEmpty();
            assertThat(holder.release(first)).isTrue();
            TestThreads.awaitWoken("handed, and told", woken);

            // The waiter does not take its grant: its lease runs out on the database, and another
            // client takes the lock over.
            LockRequest taking = request(name, Duration.ofSeconds(30));
            AtomicReference<Grant> takenOver = new AtomicReference<>();
            TestThreads.awaitCondition(
                    "another client takes the lock over once the handed lease ran out",
                    KitTime.bound(lease.plus(KitTime.TAKE_OVER)),
                    () -> {
                        next.tryAcquire(taking).ifPresent(takenOver::set);
                        return takenOver.get() != null;
                    });
            Grant taken = takenOver.get();
            assertThat(taken.fencingToken()).isGreaterThan(first.fencingToken() + 1);

            Optional<Grant> stale = late.tryAcquire(waiting);
            assertThat(stale.map(grant -> grant.validityNanos(lease) + " ns of validity"))
                    .as("the waiter's attempt after another client took the lock over")
                    .isEmpty();
            assertThat(next.release(taken)).isTrue();
        } finally {
            subscription.close();
        }
    }

    /**
     * A client's first wait opens its listener's connection and waits for its LISTEN; its entry in the
     * line must exist before that, or the releasing client takes the lock straight back meanwhile, over
     * and over. The waiter's connections go through a proxy that delays every packet by 100 ms, so
     * its listener needs several round trips (connect, authenticate, LISTEN) and its entry one: the
     * entry must be in the table well before the listener listens.
     */
    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aFreshClientsFirstWaitIsInLineBeforeItsListenerListens(String strategy) throws Exception {
        String table = table();
        JdbcLockBackend holder = backend(strategy, table);
        String name = "job";
        Grant held = holder.tryAcquire(request(name)).orElseThrow();
        TcpProxy proxy = TcpProxy.start(new InetSocketAddress(server.host(), server.port()));
        resources.add(proxy);
        String proxied = JdbcFixtures.uri(server, strategy)
                        .replace(
                                server.host() + ":" + server.port(),
                                "127.0.0.1:" + proxy.address().getPort())
                + "&table=" + table;
        JdbcLockBackend fresh = (JdbcLockBackend) new JdbcLockBackendProvider().create(proxied, OPTIONS);
        resources.add(fresh);
        LockRequest waiting = request(name);
        assertThat(fresh.tryAcquire(waiting)).as("refused, with its pool open").isEmpty();

        String waiters = table + "_waiters";
        try (Connection db = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                PreparedStatement inLine = db.prepareStatement(
                        "SELECT count(*) FROM " + waiters + " WHERE lock_name = ? AND owner_id = ?");
                PreparedStatement listening = db.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()")) {
            inLine.setString(1, name);
            inLine.setString(2, waiting.ownerId());
            long listenersBefore = count(listening);
            proxy.latency(Duration.ofMillis(100));
            AtomicReference<Subscription> subscription = new AtomicReference<>();
            Thread subscriber = new Thread(() -> subscription.set(InLine.enter(fresh, waiting, () -> {})));
            subscriber.start();
            String first = null;
            while (first == null && subscriber.isAlive()) {
                boolean entry = count(inLine) > 0;
                boolean listener = count(listening) > listenersBefore;
                if (entry || listener) {
                    first = entry && !listener ? "the entry" : listener && !entry ? "the listener" : "both at once";
                }
            }
            subscriber.join(KitTime.grant().toMillis());
            if (subscription.get() != null) {
                resources.add(subscription.get()::close);
            }
            assertThat(first).as("what the database showed first").isEqualTo("the entry");
        } finally {
            proxy.latency(Duration.ZERO);
            holder.release(held);
        }
    }

    private static long count(PreparedStatement query) throws SQLException {
        try (ResultSet rs = query.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private JdbcLockBackend backend(String strategy, String table) {
        JdbcLockBackend backend = (JdbcLockBackend)
                new JdbcLockBackendProvider().create(JdbcFixtures.uri(server, strategy) + "&table=" + table, OPTIONS);
        resources.add(backend);
        return backend;
    }

    private static LockRequest request(String name) {
        return request(name, LEASE);
    }

    private static LockRequest request(String name, Duration lease) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, lease)
                .build();
    }

    private static String table() {
        return "handoff_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** The owner of the live exclusive grant of {@code name}, read from the lock row. */
    private static Optional<String> owner(String strategy, String table, String name) throws SQLException {
        String locks = table;
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                PreparedStatement select = connection.prepareStatement("SELECT owner_id FROM " + locks
                        + " WHERE lock_name = ? AND lock_mode = 'X' AND expires_at > clock_timestamp()")) {
            select.setString(1, name);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }
}
