package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.Capability;
import dev.baton.tck.KitTime;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The conformance kit on a 3-member etcd cluster, with the leader killed (SIGKILL) a few tests into
 * the run and left down: the rest of the kit runs on the two members left, with clients that were
 * connected to all three (their connections to the dead member fail, their watches on it end).
 *
 * <p>One test at a time, although the module runs the kit's groups side by side: the kill must fall
 * between two tests, not in the middle of others' operations (which would then fail within their
 * timeout, as the contract allows but the kit does not expect).
 */
@ResourceLock(value = LockBackendContract.JVM_THREADS, mode = ResourceAccessMode.READ_WRITE)
class EtcdClusterContractTest extends LockBackendContract {
    /** How many kit tests run on the whole cluster before the leader is killed. */
    private static final int TESTS_BEFORE_THE_KILL = 8;

    private static EtcdServer cluster;
    private static final AtomicInteger testsStarted = new AtomicInteger();
    /** The member the proxy tests reach: never the killed one. */
    private static volatile int proxied;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdServer.startCluster(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void killTheLeaderOnce() {
        if (testsStarted.incrementAndGet() != TESTS_BEFORE_THE_KILL) {
            return;
        }
        int leader = cluster.leader();
        assertThat(leader).as("a member of the cluster is the leader").isNotNegative();
        proxied = (leader + 1) % cluster.size();
        cluster.kill(leader);
        // The kit bounds every operation by 2 s, about what the election takes: let the two members
        // left elect a leader first (an operation caught in an election fails with
        // LockUnavailableException within its timeout, as the contract says; EtcdFaultTest's cluster
        // case rides through one).
        // etcd's election timeout (1 s in EtcdMember), randomised up to twice that, and a round.
        Duration election = Duration.ofSeconds(2);
        Await.condition("the two members left to elect a leader", KitTime.bound(election), () -> {
            int elected = cluster.leader();
            return elected >= 0 && elected != leader;
        });
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "etcd, 3-member cluster (leader killed during the run)";
            }

            @Override
            public String uri() {
                return cluster.uri() + "/baton-tck";
            }

            @Override
            public InetSocketAddress serverAddress() {
                return cluster.address(proxied);
            }

            /** Through the proxy only: a client that could fail over to another member would not be cut. */
            @Override
            public String uriVia(InetSocketAddress address) {
                return "etcd://" + address.getHostString() + ":" + address.getPort() + "/baton-tck";
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }
        };
    }
}
