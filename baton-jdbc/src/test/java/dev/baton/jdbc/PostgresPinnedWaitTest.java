package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.servers.PostgresServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pinned grant's session ends once it has been idle for the lease time, counted from the end of the
 * statement that took the lock ({@code pinned.PinningProtocol#acquire}): a waiter that reads the database's grant only
 * after that (its answer held back, as when the client is stopped while it is in flight) and after
 * another client took the lock must not get it. Its connection goes through a proxy that holds the
 * answer back. Before the fix, the waiter got the grant, which the core counts from when acquire
 * returned: valid for a whole lease beside the new holder.
 */
class PostgresPinnedWaitTest {
    private static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration LEASE = Duration.ofSeconds(1);

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
     * The advisory strategy's wait statement also sets the session's {@code idle_session_timeout},
     * so the session ends a lease time after the grant even if the client never reads it. (The
     * pessimistic strategy sets its idle bound in the statement after the wait, which the client sends
     * only once it read the grant: its session stays while the answer is held back.)
     */
    @Test
    void aWaitedGrantReadAfterItsSessionEndedIsNotHandedOut() throws Exception {
        String strategy = "advisory";
        String table = "pinned_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String direct = JdbcFixtures.uri(server, strategy) + "&table=" + table;
        TcpProxy proxy = TcpProxy.start(new InetSocketAddress(server.host(), server.port()));
        resources.add(proxy);
        String proxied = direct.replace(
                server.host() + ":" + server.port(),
                "127.0.0.1:" + proxy.address().getPort());
        JdbcLockBackend holder = backend(direct);
        JdbcLockBackend waiter = backend(proxied);
        JdbcLockBackend next = backend(direct);
        String name = "job";
        Grant held = holder.tryAcquire(request(name, LONG)).orElseThrow();
        long waitingBefore = waitingForLocks();

        LockRequest waiting = request(name, LEASE);
        Duration wait = Duration.ofSeconds(10);
        CompletableFuture<Optional<Grant>> waited = TestThreads.inThread(
                () -> waiter.waiting(waiting.kind()).blockingWait().acquire(waiting, wait.toNanos()));
        TestThreads.awaitCondition(
                strategy + ": the waiter waits in the database's queue", () -> waitingForLocks() > waitingBefore);

        proxy.pause(); // the database's answer to the waiter stays in the proxy
        assertThat(holder.release(held)).isTrue();
        AtomicReference<Grant> takenOver = new AtomicReference<>();
        TestThreads.awaitCondition(
                strategy + ": another client holds the lock once the waiter's idle session ended",
                KitTime.bound(LEASE.plus(KitTime.TAKE_OVER)),
                () -> {
                    next.tryAcquire(request(name, LONG)).ifPresent(takenOver::set);
                    return takenOver.get() != null;
                });
        proxy.resume();

        assertThat(Await.result(waited, KitTime.bound(wait))
                        .map(grant -> grant.validityNanos(LEASE) + " ns of validity"))
                .as(strategy + ": the waiter's grant, read after another client took the lock")
                .isEmpty();
        assertThat(next.release(takenOver.get())).isTrue();
    }

    private JdbcLockBackend backend(String uri) {
        JdbcLockBackend backend = (JdbcLockBackend) new JdbcLockBackendProvider().create(uri, OPTIONS);
        resources.add(backend);
        return backend;
    }

    private static LockRequest request(String name, Duration lease) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, lease)
                .build();
    }

    /** Sessions of the database waiting for a lock (an advisory lock, a row lock). */
    private static long waitingForLocks() {
        try (Connection db = DriverManager.getConnection(server.jdbcUrl(), server.user(), server.password());
                PreparedStatement count =
                        db.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
                ResultSet rs = count.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
