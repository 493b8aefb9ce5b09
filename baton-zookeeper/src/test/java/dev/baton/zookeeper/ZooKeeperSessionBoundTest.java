package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.servers.ZooKeeperServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lease on ZooKeeper is valid for at most the session timeout the server negotiated after the last
 * answer of its session, whatever its lease time and whatever the URI asked for ({@link
 * ZooKeeperSessionBound}): a holder cut off until its session expired and another client holds the
 * lock is no longer valid, on a session the URI made shorter than the lease and on one the server
 * lowered; a lease without auto-renewal is reported lost once the session's proof runs out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperSessionBoundTest {
    /** Shorter than every lease here: the session, not the lease, frees a silent holder's lock. */
    private static final Duration SESSION = Duration.ofSeconds(1);

    private static final Duration LEASE = Duration.ofSeconds(3);

    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(5);

    private static ZooKeeperServer server;
    /** Grants at most {@link #SESSION}, whatever the client asks for. */
    private static ZooKeeperServer clamping;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        server = ZooKeeperServer.start();
        clamping = ZooKeeperServer.start(SESSION);
    }

    @AfterAll
    static void stopServers() {
        server.close();
        clamping.close();
    }

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private LockClient client(String uri, Duration lease, boolean autoRenew) {
        return track(Baton.connect(
                uri,
                LockOptions.builder()
                        .leaseTime(lease)
                        .autoRenew(autoRenew)
                        .operationTimeout(OPERATION_TIMEOUT)
                        .build()));
    }

    @Test
    void aHolderCutOffPastASessionTheUriMadeShorterThanTheLeaseIsNotValidOnceAnotherHoldsTheLock() throws Exception {
        cutOffHolderIsNotValidOnceAnotherHoldsTheLock(server, "sessionTimeout=" + SESSION.toMillis() + "ms&");
    }

    @Test
    void aHolderCutOffPastASessionTheServerLoweredBelowTheLeaseIsNotValidOnceAnotherHoldsTheLock() throws Exception {
        // The URI asks for the default 30 s; the server grants one second.
        cutOffHolderIsNotValidOnceAnotherHoldsTheLock(clamping, "");
    }

    /**
     * With {@code onSuspended=wait} the holder keeps its lease through the disconnection, so only its
     * validity can tell it that the session, and the lock, may be gone.
     */
    private void cutOffHolderIsNotValidOnceAnotherHoldsTheLock(ZooKeeperServer on, String session) throws Exception {
        String name = "bound-" + UUID.randomUUID();
        TcpProxy link = track(TcpProxy.start(on.address(0)));
        String linked = link.address().getHostString() + ":" + link.address().getPort();
        LockClient holder = client("zookeeper://" + linked + "/bound?" + session + "onSuspended=wait", LEASE, true);
        LockClient other = client("zookeeper://" + on.connectString() + "/bound?" + session, LEASE, true);
        Lease held = holder.lock(name).acquire(KitTime.grant(OPERATION_TIMEOUT));

        link.cut();
        // The session's expiry, the waiter's watch and its next request, then a grant.
        Duration freed = KitTime.bound(SESSION.plus(OPERATION_TIMEOUT).plus(KitTime.TAKE_OVER));
        try (Lease next = other.lock(name).acquire(freed)) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(held.isValid())
                    .as("the cut-off holder's lease (lease time %s) once another client holds the lock", LEASE)
                    .isFalse();
        }
    }

    @Test
    void aLeaseWithoutAutoRenewalIsReportedLostWhenItsSessionsProofRunsOutNotAtItsLeaseTime() throws Exception {
        Duration lease = Duration.ofSeconds(10);
        LockClient holder = client(
                "zookeeper://" + server.connectString() + "/bound?sessionTimeout=" + SESSION.toMillis() + "ms",
                lease,
                false);
        KitTime.Stopwatch sinceAcquire = KitTime.stopwatch();
        Lease held = holder.lock("bound-" + UUID.randomUUID()).acquire(KitTime.grant(OPERATION_TIMEOUT));
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        assertThat(held.expiresAt())
                .as("the expiry the lease reports")
                .isBefore(Instant.now().plus(lease.dividedBy(2)));

        // Half the lease time, plus the stall measured, but never the lease time itself: a loss reported
        // by then comes from the session's bound, not the lease.
        assertThat(Await.result(lost, lease)).hasMessageContaining("lease lost");
        assertThat(sinceAcquire.millis())
                .as("ms from the acquisition to the loss (%s)", sinceAcquire)
                .isLessThan(Math.min(sinceAcquire.allows(lease.dividedBy(2)).toMillis(), lease.toMillis()));
        assertThat(held.isValid()).isFalse();
        held.close();
    }
}
