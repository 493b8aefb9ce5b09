package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A namespace served to other JVMs ({@link MemLockServer}); the clients here reach it through the
 * loopback as another JVM's would (the kit's {@link MemContractTest} also runs them in child JVMs).
 */
class MemLockServerTest {
    static final Duration OPERATION_TIMEOUT = Duration.ofMillis(500);
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(OPERATION_TIMEOUT)
            .pollInitialDelay(Duration.ofMillis(5))
            .pollMaxDelay(Duration.ofMillis(50))
            .build();

    private final String namespace = "served-" + UUID.randomUUID().toString().substring(0, 8);
    private final MemLockServer server = MemLocks.serve(namespace);
    private final MemFaults faults = MemLocks.faults(namespace);

    @AfterEach
    void stop() {
        server.close();
        MemLocks.forget(namespace);
    }

    @Test
    void clientsThroughTheServerAndInThisJvmShareOneTable() {
        try (LockClient here = Baton.connect(MemLocks.uri(namespace), OPTIONS);
                LockClient there = Baton.connect(server.uri(), OPTIONS)) {
            assertThat(there.backendName()).isEqualTo("mem (" + server.uri().substring("mem://".length()) + ")");
            Lease held = here.lock("shared").acquire(Duration.ofSeconds(1));
            assertThat(there.lock("shared").tryAcquire()).isEmpty();
            CompletableFuture<Lease> waiter = there.lock("shared").acquireAsync(Duration.ofSeconds(10));
            held.close();
            Lease next = waiter.join();
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(faults.tokens("shared")).containsExactly(held.fencingToken(), next.fencingToken());
            next.close();
        }
    }

    @Test
    void anotherJvmConnectsWithTheServersUri() {
        // snippet:start serve
        MemLockServer billing = MemLocks.serve("billing"); // a free port of the loopback interface
        String uri = billing.uri(); // mem://127.0.0.1:<port>/billing, for the application's other JVMs
        // snippet:end serve
        try (LockClient there = Baton.connect(uri, OPTIONS);
                LockClient here = Baton.connect("mem://billing", OPTIONS);
                Lease held = here.lock("invoice-42").acquire(Duration.ofSeconds(1))) {
            assertThat(uri).matches("mem://127\\.0\\.0\\.1:\\d+/billing");
            assertThat(there.lock("invoice-42").tryAcquire()).isEmpty();
        } finally {
            billing.close();
            MemLocks.forget("billing");
        }
    }

    @Test
    void theFaultsOfTheNamespaceReachItsOtherJvms() {
        try (LockClient there = Baton.connect(server.uri(), OPTIONS);
                MemFault outage = faults.unreachable()) {
            assertThatThrownBy(() -> there.lock("cut").acquire(Duration.ofSeconds(10)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("cut")
                    .hasMessageContaining("unreachable");
        }
    }

    @Test
    void aStalledRenewalHoldsBackNoOtherCallOfItsConnection() throws Exception {
        LockOptions patient =
                OPTIONS.toBuilder().operationTimeout(Duration.ofSeconds(30)).build();
        try (LockBackend there = Baton.backend(server.uri(), patient)) {
            Grant grant = there.tryAcquire(request("stalled")).orElseThrow();
            CompletableFuture<Optional<Grant>> renewal;
            try (MemFault stall = faults.stallRenewals("stalled")) {
                renewal = CompletableFuture.supplyAsync(() -> there.renew(grant, Duration.ofSeconds(2)));
                await().atMost(KitTime.grant()).until(() -> faults.renewalsInStall() == 1);
                assertThat(there.tryAcquire(request("other"))).isPresent();
                assertThat(renewal)
                        .as("still stalled while the other call was answered")
                        .isNotDone();
            }
            assertThat(renewal.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                    .as("answered once the fault ended")
                    .isPresent();
        }
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(
                        name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, Duration.ofSeconds(2))
                .build();
    }

    @Test
    void aClientOfAnotherNamespaceIsRefusedNamingBoth() {
        String uri = server.uri().replace(namespace, "other");
        try (LockClient wrong = Baton.connect(uri, OPTIONS)) {
            assertThatThrownBy(() -> wrong.lock("x").tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("serves namespace '" + namespace + "', not 'other'");
        }
    }

    @Test
    void aClosedServerFailsItsClientsWithinTheOperationTimeout() {
        try (LockClient here = Baton.connect(MemLocks.uri(namespace), OPTIONS);
                LockClient there = Baton.connect(server.uri(), OPTIONS)) {
            Lease held = here.lock("kept").acquire(Duration.ofSeconds(1));
            there.lock("warm").tryAcquire().ifPresent(Lease::close);
            server.close();
            KitTime.Stopwatch refused = KitTime.stopwatch();
            assertThatThrownBy(() -> there.lock("kept").acquire(Duration.ofSeconds(30)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("kept");
            assertThat(refused.millis())
                    .as("refused after %s", refused)
                    .isLessThanOrEqualTo(refused.allows(OPERATION_TIMEOUT.plus(KitTime.SLACK))
                            .toMillis());
            assertThat(held.isValid()).as("the namespace outlives its server").isTrue();
            held.close();
        }
    }

    @Test
    void theWaitersOfALostConnectionLeaveTheLineAtOnce() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(server.address());
                LockClient here = Baton.connect(MemLocks.uri(namespace), OPTIONS);
                LockClient there = Baton.connect(
                        server.uri()
                                .replace(
                                        ":" + server.address().getPort() + "/",
                                        ":" + proxy.address().getPort() + "/"),
                        OPTIONS);
                LockAdmin admin = Baton.admin(MemLocks.uri(namespace))) {
            Lease held = here.lock("busy").acquire(Duration.ofSeconds(1));
            CompletableFuture<Lease> waiter = there.lock("busy").acquireAsync(Duration.ofSeconds(30));
            await().atMost(KitTime.grant()).until(() -> waiters(admin, "busy").equals(OptionalInt.of(1)));

            proxy.cut();
            assertThatThrownBy(() -> waiter.get(KitTime.bound(OPERATION_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS))
                    .hasCauseInstanceOf(LockUnavailableException.class);
            await().atMost(KitTime.grant()).until(() -> waiters(admin, "busy").equals(OptionalInt.of(0)));
            held.close();
        }
    }

    private static OptionalInt waiters(LockAdmin admin, String name) {
        List<LockInfo> found = admin.locks(name);
        return found.isEmpty() ? OptionalInt.empty() : found.get(0).waiters();
    }
}
