package dev.baton.jdbc;

import static dev.baton.jdbc.TestThreads.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * LISTEN/NOTIFY wake-ups of the table strategy on PostgreSQL, and of permits on
 * every strategy: with a poll delay of
 * 5 s, a waiter in another client gets the lock well within a second of the release, which only a
 * notification can explain; and it still does after the listener's connection was killed and came
 * back.
 */
class PostgresReleaseNotificationsTest {
    private static final Duration POLL = Duration.ofSeconds(5);
    /**
     * The most a notified hand-over takes on an idle machine; even stretched by the machine's stall
     * to its most ({@link KitTime#MAX_STRETCH}), shorter than {@link #POLL}, which it must not explain.
     */
    private static final Duration WOKEN_WITHIN = KitTime.TAKE_OVER;

    private static PostgresServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static LockOptions slowPolling() {
        return LockOptions.builder()
                .leaseTime(Duration.ofSeconds(30))
                .pollInitialDelay(POLL)
                .pollMaxDelay(POLL)
                .build();
    }

    private static String uri(String strategy) {
        return JdbcFixtures.uri(server, strategy) + "&table=notify_" + strategy;
    }

    @ParameterizedTest
    @ValueSource(strings = {"table"})
    void aWaiterInAnotherClientIsWokenByNotifyLongBeforeItsPollDelay(String strategy) throws Exception {
        try (LockClient holder = Baton.connect(uri(strategy), slowPolling());
                LockClient waiter = Baton.connect(uri(strategy), slowPolling())) {
            String name = "notify-" + UUID.randomUUID();
            String table = "notify_" + strategy;
            assertWokenByNotify("hand-over through NOTIFY", handOver(holder, waiter, name, table));

            // Kill the listener's session: it reconnects, and wake-ups work again.
            int listenerPid = listenerPid();
            try (Connection admin = admin();
                    Statement st = admin.createStatement()) {
                st.execute("SELECT pg_terminate_backend(" + listenerPid + ")");
            }
            awaitCondition("a new LISTEN session", () -> {
                int pid = listenerPid();
                return pid != 0 && pid != listenerPid;
            });
            assertWokenByNotify(
                    "hand-over through NOTIFY after the listener reconnected", handOver(holder, waiter, name, table));
        }
    }

    /**
     * Permits poll on every strategy (the pessimistic and advisory ones queue only lock waiters), and
     * a permit's release wakes the client registered in the semaphore's row; a lock of the same name
     * held meanwhile is not disturbed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"table", "pessimistic", "advisory"})
    void aPermitWaiterIsWokenByNotifyOnEveryStrategy(String strategy) throws Exception {
        try (LockClient holder = Baton.connect(uri(strategy), slowPolling());
                LockClient waiter = Baton.connect(uri(strategy), slowPolling());
                Lease lockOfTheSameName = waiter.lock("notify-permit").acquire(KitTime.grant())) {
            String select = "SELECT waiter FROM notify_" + strategy + "_semaphores WHERE semaphore_name = ?";
            assertWokenByNotify(
                    "hand-over of a permit through NOTIFY",
                    handOver(
                            client -> client.semaphore("notify-permit", 1).acquire(Duration.ofSeconds(30)),
                            holder,
                            waiter,
                            "notify-permit",
                            select));
            assertThat(lockOfTheSameName.isValid()).isTrue();
        }
    }

    /**
     * The holder takes the lock, the waiter waits until it is parked in its 5-second poll pause (it
     * already failed, subscribed and retried), then the holder releases. Returns the hand-over, timed.
     */
    private static HandOver handOver(LockClient holder, LockClient waiter, String name, String table) throws Exception {
        return handOver(
                client -> client.lock(name).acquire(Duration.ofSeconds(30)),
                holder,
                waiter,
                name,
                // Fair (the default): the waiter's entry in the line carries its client's channel, and the
                // release that hands it the lock deletes the entry.
                "SELECT channel FROM " + table + "_waiters WHERE lock_name = ?");
    }

    /** The same for what {@code take} takes, with the registration read by {@code selectWaiter}. */
    private static HandOver handOver(
            Function<LockClient, Lease> take, LockClient holder, LockClient waiter, String name, String selectWaiter)
            throws Exception {
        Lease held = take.apply(holder);
        CompletableFuture<Lease> got = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                got.complete(take.apply(waiter));
            } catch (Throwable t) {
                got.completeExceptionally(t);
            }
        });
        thread.setDaemon(true);
        thread.start();
        awaitCondition("the waiter to park in its poll pause", () -> parkedInPollPause(thread));
        assertThat(registeredWaiter(selectWaiter, name))
                .as("the waiting client registered its channel for the release to notify")
                .matches("baton_w_[0-9a-f]{24}");
        KitTime.Stopwatch released = KitTime.stopwatch();
        held.close();
        try (Lease lease = Await.result(got, KitTime.bound(POLL))) {
            long millis = released.millis();
            assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(registeredWaiter(selectWaiter, name))
                    .as("the new grant cleared the registration")
                    .isNull();
            return new HandOver(millis, released.allows(WOKEN_WITHIN), released.toString());
        }
    }

    /** How long a hand-over took, and what the machine's stall meanwhile allows it. */
    private record HandOver(long millis, Duration allowed, String timed) {}

    private static void assertWokenByNotify(String what, HandOver handOver) {
        assertThat(handOver.millis())
                .as("%s (%s)", what, handOver.timed())
                .isLessThan(handOver.allowed().toMillis());
    }

    /** The channel registered in the row of {@code name}, read by {@code select}, or null. */
    private static String registeredWaiter(String select, String name) {
        try (Connection admin = admin();
                java.sql.PreparedStatement ps = admin.prepareStatement(select)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Parked in the caller's driver between two steps: every frame above its {@code runUntil} is the
     * JDK's own. A step that waits (for a connection, for the listener) also shows {@code runUntil}
     * lower in its stack, with Baton's frames above it.
     */
    private static boolean parkedInPollPause(Thread thread) {
        if (thread.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().endsWith("Driver$Caller")
                    && frame.getMethodName().equals("runUntil")) {
                return true;
            }
            if (!frame.getClassName().startsWith("java.")
                    && !frame.getClassName().startsWith("jdk.")) {
                return false;
            }
        }
        return false;
    }

    /** The pid of the session listening for release notifications (only the waiter's client has one), or 0. */
    private static int listenerPid() {
        try (Connection admin = admin();
                Statement st = admin.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN \"baton\\_w\\_%'")) {
            int pid = rs.next() ? rs.getInt(1) : 0;
            assertThat(rs.next()).as("one listening session").isFalse();
            return pid;
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static Connection admin() throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
    }
}
