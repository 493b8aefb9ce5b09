package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import dev.baton.jdbc.row.JdbcLine;
import dev.baton.tck.Await;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fair hand-off of the table strategy ({@code WaiterStatements}, {@link JdbcLine}):
 * while a waiter of another client is in line, the releasing client's immediate re-acquire is
 * refused; with {@code fair=false} it succeeds (the protocol before fair hand-off). The waiter polls
 * every 30 s, so its prompt grant also shows that the queue wakes it on release.
 */
abstract class FairHandOffTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** The strategies of the table-driven protocol this database supports. */
    abstract List<String> strategies();

    /** The Baton URI for a strategy and table, with {@code extra} ("fair=false") if not null. */
    abstract String url(String strategy, String table, String extra);

    /** A plain connection to the database, to look at the waiters table. */
    abstract Connection connect() throws SQLException;

    /**
     * Whether a waiter with fair=false might be woken by a release notification (PostgreSQL), which
     * would race the releasing client's re-acquire; the barging check runs only where it cannot.
     */
    abstract boolean notifiesReleases();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        resources.clear();
    }

    @Test
    void releasingClientsReAcquireIsRefusedWhileAnotherClientWaits() throws Exception {
        for (String strategy : strategies()) {
            String table = table();
            LockClient holder = client(url(strategy, table, null), OPTIONS);
            CountDownLatch waiting = new CountDownLatch(1);
            LockClient other = client(url(strategy, table, null), slowPolling(waiting));

            Lease first = holder.lock("job").acquire();
            CompletableFuture<Lease> queued =
                    TestThreads.inThread(() -> other.lock("job").acquire(Duration.ofSeconds(30)));
            TestThreads.awaitCondition(strategy + ": the other client waits", () -> waiting.getCount() == 0);
            TestThreads.awaitCondition(strategy + ": the other client is in line", () -> waiters(strategy, table) == 1);

            first.close();
            assertThat(holder.lock("job").tryAcquire())
                    .as(strategy + ": the releasing client's re-acquire while another client waits")
                    .isEmpty();
            try (Lease handedOff = Await.result(queued, KitTime.bound(KitTime.TAKE_OVER))) {
                assertThat(handedOff.fencingToken()).isGreaterThan(first.fencingToken());
                assertThat(waiters(strategy, table))
                        .as(strategy + ": the granted waiter left the line")
                        .isZero();
            }
            Optional<Lease> again = holder.lock("job").tryAcquire();
            assertThat(again).as(strategy + ": nobody waits any more").isPresent();
            again.get().close();
        }
    }

    @Test
    void aWaiterThatGivesUpLeavesTheLine() throws Exception {
        for (String strategy : strategies()) {
            String table = table();
            LockClient holder = client(url(strategy, table, null), OPTIONS);
            CountDownLatch waiting = new CountDownLatch(1);
            LockClient other = client(url(strategy, table, null), slowPolling(waiting));

            Lease first = holder.lock("job").acquire();
            assertThatThrownBy(() -> other.lock("job").acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class);
            assertThat(waiters(strategy, table))
                    .as(strategy + ": a timed-out waiter left the line")
                    .isZero();

            first.close();
            Optional<Lease> again = holder.lock("job").tryAcquire();
            assertThat(again).as(strategy + ": nobody waits").isPresent();
            again.get().close();
        }
    }

    @Test
    void fairFalseInTheUriOrTheOptionsLetsTheReleasingClientTakeTheLockBack() throws Exception {
        if (notifiesReleases()) {
            return; // see notifiesReleases(); the URI parameter itself is covered by LockUrlTest
        }
        for (String strategy : strategies()) {
            for (boolean byUri : new boolean[] {true, false}) {
                String table = table();
                String url = url(strategy, table, byUri ? "fair=false" : null);
                LockOptions barging = OPTIONS.toBuilder().fair(byUri).build();
                LockClient holder = client(url, barging);
                CountDownLatch waiting = new CountDownLatch(1);
                LockClient other =
                        client(url, slowPolling(waiting).toBuilder().fair(byUri).build());

                Lease first = holder.lock("job").acquire();
                CompletableFuture<Lease> waiter =
                        TestThreads.inThread(() -> other.lock("job").acquire(Duration.ofSeconds(1)));
                TestThreads.awaitCondition(strategy + ": the other client waits", () -> waiting.getCount() == 0);

                first.close();
                Optional<Lease> again = holder.lock("job").tryAcquire();
                assertThat(again)
                        .as(strategy + " with fair=false " + (byUri ? "in the URI" : "in LockOptions"))
                        .isPresent();
                assertThatThrownBy(() -> Await.result(waiter, KitTime.bound(Duration.ofSeconds(1))))
                        .hasCauseInstanceOf(LockTimeoutException.class);
                again.get().close();
            }
        }
    }

    private LockClient client(String url, LockOptions options) {
        LockClient client = Baton.connect(url, options);
        resources.add(client);
        return client;
    }

    /** Options whose waiter polls every 30 s and counts down {@code waiting} when it starts waiting. */
    private static LockOptions slowPolling(CountDownLatch waiting) {
        return OPTIONS.toBuilder()
                .pollInitialDelay(Duration.ofSeconds(30))
                .pollMaxDelay(Duration.ofSeconds(30))
                .listener(new LockListener() {
                    @Override
                    public void waitStarted(String lock, String backend) {
                        waiting.countDown();
                    }
                })
                .build();
    }

    private static String table() {
        return "fair_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** The entries in the strategy's waiters table. */
    private int waiters(String strategy, String table) {
        String waiters = table + "_waiters";
        try (Connection connection = connect();
                PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM " + waiters);
                ResultSet rs = count.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("counting " + waiters + " failed", e);
        }
    }
}
