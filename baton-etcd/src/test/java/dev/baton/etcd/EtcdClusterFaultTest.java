package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults of a 3-member cluster: the leader killed under contending clients, and quorum lost. */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
class EtcdClusterFaultTest {
    /** etcd's election timeout (1 s in EtcdMember), randomised up to twice that. */
    private static final Duration ELECTION = Duration.ofSeconds(2);

    @Test
    void contendingClientsRideThroughTheLeadersDeath() throws Exception {
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(5))
                .operationTimeout(Duration.ofSeconds(5))
                .build();
        String name = "election-" + UUID.randomUUID();
        try (EtcdServer cluster = EtcdServer.startCluster(3)) {
            List<LockClient> clients = new ArrayList<>();
            try {
                AtomicInteger inside = new AtomicInteger();
                AtomicInteger overlaps = new AtomicInteger();
                AtomicInteger holds = new AtomicInteger();
                AtomicLong lastToken = new AtomicLong();
                AtomicInteger tokensBackwards = new AtomicInteger();
                AtomicInteger killedAt = new AtomicInteger(-1);
                // An operation the kill cut off runs out, the members left elect a leader, then 60 holds.
                Duration afterKill =
                        KitTime.bound(options.operationTimeout().plus(ELECTION)).plus(KitTime.bulkWork(60));
                List<CompletableFuture<Void>> workers = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    LockClient client = Baton.connect(cluster.uri(), options);
                    clients.add(client);
                    workers.add(CompletableFuture.runAsync(() -> {
                        while (killedAt.get() < 0 || holds.get() < killedAt.get() + 60) {
                            try (Lease lease = client.lock(name).acquire(afterKill)) {
                                if (inside.incrementAndGet() > 1) {
                                    overlaps.incrementAndGet();
                                }
                                if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                                    tokensBackwards.incrementAndGet();
                                }
                                holds.incrementAndGet();
                                inside.decrementAndGet();
                            }
                        }
                    }));
                }
                Await.condition(
                        "60 holds before the kill",
                        KitTime.grant().plus(KitTime.bulkWork(60)),
                        () -> holds.get() >= 60);
                int leader = cluster.leader();
                assertThat(leader).isNotNegative();
                killedAt.set(holds.get());
                cluster.kill(leader);
                Await.result(CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)), afterKill);
                assertThat(overlaps.get()).as("overlapping holds").isZero();
                assertThat(tokensBackwards.get())
                        .as("tokens not above the previous holder's")
                        .isZero();
                assertThat(holds.get()).isGreaterThanOrEqualTo(killedAt.get() + 60);
            } finally {
                clients.forEach(LockClient::close);
            }
        }
    }

    @Test
    void aClusterWithoutQuorumIsNamedAsSuch() {
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(2))
                .operationTimeout(KitTime.operationTimeout())
                .build();
        try (EtcdServer cluster = EtcdServer.startCluster(3)) {
            String name = "quorum-" + UUID.randomUUID();
            try (LockClient client = Baton.connect(cluster.uri(), options)) {
                client.lock(name).acquire(KitTime.grant()).close();
                cluster.kill(1);
                cluster.kill(2);
                // The member left forgets the leader an election timeout after it last heard from it;
                // a write it took before that waits, dropped, until it times out (and says so).
                List<String> messages = new ArrayList<>();
                Await.condition(
                        "an attempt that fails with 'no quorum'",
                        KitTime.bound(ELECTION.plus(options.operationTimeout().multipliedBy(3))),
                        () -> {
                            Throwable thrown =
                                    catchThrowable(() -> client.lock(name).acquire(KitTime.grant()));
                            assertThat(thrown).isInstanceOf(LockUnavailableException.class);
                            messages.add(thrown.getMessage());
                            return thrown.getMessage().contains("no quorum");
                        },
                        () -> "; messages: " + messages);
                assertThat(messages.get(messages.size() - 1))
                        .contains(name)
                        .contains("a majority of its members must be up");
                cluster.restart(1);
                Duration elected = KitTime.bound(ELECTION.plus(options.operationTimeout()));
                try (Lease lease = client.lock(name).acquire(elected)) {
                    assertThat(lease.isValid())
                            .as("quorum is back with two of three")
                            .isTrue();
                }
            }
        }
    }
}
