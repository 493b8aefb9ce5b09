package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.jdbc.row.JdbcLine;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.tck.KitTime;
import java.sql.Connection;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * H2's and MariaDB's fair hand-off ({@code RowHandOffStatements}, {@link JdbcLine}) at the SPI,
 * as the core drives it: a refused attempt, then a subscription (which joins the line), then attempts
 * after each wake-up, and the subscription closed when the wait ends, granted or not. The heir is
 * woken by the release itself when it waits on the releasing backend, otherwise by its poll of the
 * lock row.
 */
abstract class RowHandOffTest {
    static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** The strategies of the table-driven protocol this database supports. */
    abstract List<String> strategies();

    /** The Baton URI for a strategy and table. */
    abstract String url(String strategy, String table);

    /** A plain connection to the database. */
    abstract Connection connect() throws SQLException;

    /** The database's clock, as an SQL expression. */
    abstract String now();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        resources.clear();
    }

    /**
     * The release itself makes the head of the line the owner (the row names it the moment release()
     * returns) and, the waiter being on the releasing backend, has woken it with the grant by then; its next
     * attempt returns that grant; the releasing client's immediate re-acquire is refused.
     */
    @Test
    void aQueuedWaiterGetsTheGrantFromTheRelease() throws Exception {
        for (String strategy : strategies()) {
            handedAndTaken(strategy, true);
        }
    }

    /**
     * The same with the waiter on another backend, as for a waiter in another JVM: nothing wakes
     * it but its poll of the lock row by owner id, which finds the grant the release wrote.
     */
    @Test
    void aWaiterNotWokenInProcessFindsItsGrantByPolling() throws Exception {
        for (String strategy : strategies()) {
            handedAndTaken(strategy, false);
        }
    }

    /**
     * A grant the release handed over counts from the hand-off, on the database's clock: a waiter that
     * takes it only after its lease ran out there, when another client has taken the lock over, does
     * not get it (before the fix it got it, valid for its whole lease time from the late attempt).
     */
    @Test
    void aHandedGrantTakenAfterItsLeaseRanOutOnTheDatabaseIsNotHandedOut() throws Exception {
        for (String strategy : strategies()) {
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
                assertThat(holder.release(first)).isTrue();
                TestThreads.awaitWoken(strategy + ": handed, and told", woken);

                LockRequest taking = request(name, LEASE);
                AtomicReference<Grant> takenOver = new AtomicReference<>();
                TestThreads.awaitCondition(
                        strategy + ": another client takes the lock over",
                        KitTime.bound(lease.plus(KitTime.TAKE_OVER)),
                        () -> {
                            next.tryAcquire(taking).ifPresent(takenOver::set);
                            return takenOver.get() != null;
                        });
                assertThat(late.tryAcquire(waiting).map(grant -> grant.validityNanos(lease) + " ns of validity"))
                        .as(strategy + ": the waiter's attempt after another client took the lock over")
                        .isEmpty();
                assertThat(next.release(takenOver.get())).isTrue();
            } finally {
                subscription.close();
            }
        }
    }

    private void handedAndTaken(String strategy, boolean inProcess) throws Exception {
        String table = table();
        JdbcLockBackend holder = backend(strategy, table);
        // Woken by the release: a waiter of the releasing client (the same backend, another owner).
        JdbcLockBackend other = inProcess ? holder : backend(strategy, table);
        String name = "job";
        Grant first = holder.tryAcquire(request(name)).orElseThrow();

        LockRequest waiting = request(name);
        assertThat(other.tryAcquire(waiting)).isEmpty();
        CountDownLatch woken = new CountDownLatch(1);
        Subscription subscription = InLine.enter(other, waiting, woken::countDown);
        try {
            assertThat(other.tryAcquire(waiting)).as("in line").isEmpty();

            assertThat(holder.release(first)).isTrue();
            if (inProcess) {
                assertThat(woken.getCount())
                        .as(strategy + ": woken by the release")
                        .isZero();
            }
            assertThat(owner(strategy, table, name))
                    .as(strategy + ": the release wrote the head of the line as the owner")
                    .contains(waiting.ownerId());
            assertThat(holder.tryAcquire(request(name)))
                    .as(strategy + ": the releasing client's immediate re-acquire")
                    .isEmpty();

            TestThreads.awaitWoken(strategy + ": woken", woken);
            Grant handed = other.tryAcquire(waiting).orElseThrow();
            assertThat(handed.ownerId()).isEqualTo(waiting.ownerId());
            assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(other.renew(handed, LEASE))
                    .as(strategy + ": the handed grant is the database's")
                    .isPresent();
        } finally {
            subscription.close();
        }
        assertThat(owner(strategy, table, name))
                .as(strategy + ": the waiter that took its grant keeps it after its wait ended")
                .contains(waiting.ownerId());
        assertThat(waiters(strategy, table))
                .as(strategy + ": nobody left in line")
                .isZero();
    }

    /**
     * A waiter that gives up just after a release handed it the lock (its wait ends before it took the
     * grant) leaves the line, finds its entry gone and releases by owner id, which hands the lock to
     * the next in line: nothing stays held by the waiter that left.
     */
    @Test
    void aWaiterGivingUpWhileHandedTheLockPassesItOn() throws Exception {
        for (String strategy : strategies()) {
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
                assertThat(owner(strategy, table, name))
                        .as(strategy + ": handed to the head")
                        .contains(quitting.ownerId());

                quitterLine.close(); // gives up without taking the grant

                assertThat(owner(strategy, table, name))
                        .as(strategy + ": the waiter that gave up passed the lock on")
                        .contains(next.ownerId());
                TestThreads.awaitWoken(strategy + ": the next in line woken", nextWoken);
                Grant handed = last.tryAcquire(next).orElseThrow();
                assertThat(handed.fencingToken()).isGreaterThan(first.fencingToken() + 1);
                assertThat(last.release(handed)).isTrue();
            } finally {
                nextLine.close();
            }
            assertThat(owner(strategy, table, name))
                    .as(strategy + ": nothing left held")
                    .isEmpty();
            assertThat(holder.tryAcquire(request(name))).isPresent();
        }
    }

    /** The same with nobody behind: the lock ends up free. */
    @Test
    void aWaiterGivingUpWhileHandedTheLockLeavesNothingHeld() throws Exception {
        for (String strategy : strategies()) {
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
            TestThreads.awaitWoken(strategy + ": handed, and told", woken);
            line.close(); // gave up after the wake-up, before its next attempt

            assertThat(owner(strategy, table, name))
                    .as(strategy + ": nothing left held")
                    .isEmpty();
            Optional<Grant> again = holder.tryAcquire(request(name));
            assertThat(again).isPresent();
            assertThat(again.get().fencingToken()).isGreaterThan(first.fencingToken() + 1);
        }
    }

    /** Nobody waiting: the plain release frees the lock, and a re-acquire gets it at once. */
    @Test
    void withNobodyInLineTheReleasingClientTakesTheLockBack() throws Exception {
        for (String strategy : strategies()) {
            String table = table();
            JdbcLockBackend holder = backend(strategy, table);
            Grant first = holder.tryAcquire(request("job")).orElseThrow();
            assertThat(holder.release(first)).isTrue();
            Grant again = holder.tryAcquire(request("job")).orElseThrow();
            assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(holder.release(again)).isTrue();
            assertThat(owner(strategy, table, "job")).isEmpty();
        }
    }

    private JdbcLockBackend backend(String strategy, String table) {
        JdbcLockBackend backend = (JdbcLockBackend) new JdbcLockBackendProvider().create(url(strategy, table), OPTIONS);
        resources.add(backend);
        return backend;
    }

    private static LockRequest request(String name, Duration lease) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, lease)
                .build();
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, LEASE)
                .build();
    }

    private static String table() {
        return "handoff_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** The owner of the live exclusive grant of {@code name}, read from the lock row. */
    private Optional<String> owner(String strategy, String table, String name) throws SQLException {
        String locks = table;
        try (Connection connection = connect();
                PreparedStatement select = connection.prepareStatement("SELECT owner_id FROM " + locks
                        + " WHERE lock_name = ? AND lock_mode = 'X' AND expires_at > " + now())) {
            select.setString(1, name);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /** The entries in the strategy's waiters table. */
    private int waiters(String strategy, String table) throws SQLException {
        String waiters = table + "_waiters";
        try (Connection connection = connect();
                PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM " + waiters);
                ResultSet rs = count.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
