package dev.baton.redis;

import dev.baton.servers.RedisClusterServers;
import dev.baton.tck.KitGroup;
import dev.baton.tck.KitVariant;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on a Redis Cluster of three masters with a replica each, with the default
 * {@code waitReplicas} (issue #25): every grant and renewal waits for the replica of its slot's
 * master. The same fixture as {@link RedisClusterContractTest}, on another cluster.
 *
 * <p>A {@link KitVariant} of {@link RedisClusterContractTest}: the same routing, scripts and node
 * connections (the default wait is on in both, so writes go to their slot's master and ask it for
 * its replicas in both), where that cluster's masters answer that they have none and this one's
 * that they have one, so here every grant and renewal is followed by {@code WAIT} on its master. The
 * groups that run here are those that write grants or renewals in ways the wait meets differently:
 * MutualExclusion (contended grants, also from other processes), Renewal and RenewalAtScale (one
 * {@code WAIT} per master for a batch across slots; a slowed, paused or hung link), LossDetection
 * (a wait through a cut link), Semaphores (permit writes), Fairness (a handed-over lock, whose
 * acquire goes to the server while the wait is on), ReadWrite (shared-mode grants) and Operators (a
 * listing must see each lock once on a cluster whose nodes include replicas).
 *
 * <p>Left to {@link RedisClusterContractTest}, as the wait adds nothing to them: Timeouts,
 * Interrupts and Closing (waiting, giving up and releasing write no grant, and only grants and
 * renewals wait); Extend (an extension is a renewal call with another lease time, {@code
 * RedisLockBackend.renew}, which Renewal exercises); Ownership (a killed holder's key expires on its
 * master by its PX, and a stranger's unlock is refused by the core); LeaderElection and MultiLocks
 * (the core's, over the same acquires that MutualExclusion makes, from processes and in sets);
 * Reentrancy and BadInput (decided by the core before any command). Replica-specific failures (a
 * paused replica, a node reconnect between a write and its {@code WAIT}, {@code waitReplicas=2}) are
 * {@link RedisClusterWaitReplicasTest}'s.
 */
@KitVariant(
        of = RedisClusterContractTest.class,
        runs = {
            KitGroup.MUTUAL_EXCLUSION,
            KitGroup.RENEWAL,
            KitGroup.RENEWAL_AT_SCALE,
            KitGroup.LOSS_DETECTION,
            KitGroup.SEMAPHORES,
            KitGroup.FAIRNESS,
            KitGroup.READ_WRITE,
            KitGroup.OPERATORS
        })
class RedisClusterReplicasContractTest extends RedisClusterContractTest {
    /** Hides {@link RedisClusterContractTest#startCluster()}, so JUnit runs this one instead. */
    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterServers.startWithReplicas(3);
    }
}
