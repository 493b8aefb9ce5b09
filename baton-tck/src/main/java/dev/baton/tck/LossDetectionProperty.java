package dev.baton.tck;

import static dev.baton.tck.KitTime.SLACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.testsupport.TcpProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The kit's loss-detection property ({@link LockBackendContract.LossDetection}): a lease whose
 * renewal becomes impossible (the link cut by a proxy) is reported lost in time, and a backend that
 * cannot be reached, or never was there, fails within the operation timeout; the client recovers
 * when the server is back.
 */
abstract class LossDetectionProperty {
    private final LockBackendContract contract;

    LossDetectionProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void leaseWhoseRenewalBecomesImpossibleIsReportedLost() throws Exception {
        String name = contract.lockName();
        TcpProxy proxy = contract.track(TcpProxy.start(contract.fixture().serverAddress()));
        Duration lease = contract.lease(Duration.ofMillis(1500));
        LockClient viaProxy = contract.clientAt(
                contract.fixture().uriVia(proxy.address()), contract.options().withLeaseTime(lease));
        Duration reportedWithin =
                lease.plus(contract.options().operationTimeout()).plus(SLACK);
        Lease held = viaProxy.lock(name).acquire(contract.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        assertThat(held.isValid()).isTrue();

        proxy.cut();
        LockLostException reported = Await.result(lost, reportedWithin);
        assertThat(reported).hasMessageContaining(name);
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::checkValid).isInstanceOf(LockLostException.class);
        CompletableFuture<LockLostException> late = new CompletableFuture<>();
        held.onLost(late::complete);
        assertThat(late).as("a listener added after the loss is called at once").isCompleted();

        try (Lease next = contract.client().lock(name).acquire(KitTime.bound(lease))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        held.close(); // never throws for a lost lease
    }

    @Test
    void unreachableBackendFailsWithinTheOperationTimeout() {
        String name = contract.lockName();
        TcpProxy proxy = contract.track(TcpProxy.start(contract.fixture().serverAddress()));
        LockOptions options = contract.options();
        Duration failsWithin = options.operationTimeout().plus(SLACK);
        LockClient viaProxy = contract.clientAt(contract.fixture().uriVia(proxy.address()), options);
        viaProxy.lock(name).acquire(contract.grant()).close();
        proxy.cut();

        KitTime.Stopwatch acquiring = KitTime.stopwatch();
        assertThatThrownBy(() -> viaProxy.lock(name).acquire(Duration.ofSeconds(60)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(name);
        assertThat(acquiring.millis())
                .as("%s", acquiring)
                .isLessThanOrEqualTo(acquiring.allows(failsWithin).toMillis());

        KitTime.Stopwatch trying = KitTime.stopwatch();
        assertThatThrownBy(() -> viaProxy.lock(name).tryAcquire()).isInstanceOf(LockUnavailableException.class);
        assertThat(trying.millis())
                .as("%s", trying)
                .isLessThanOrEqualTo(trying.allows(failsWithin).toMillis());

        proxy.restore();
        try (Lease lease = viaProxy.lock(name).acquire(contract.grant())) {
            assertThat(lease.isValid())
                    .as("the client recovers when the server is back")
                    .isTrue();
        }
    }

    @Test
    void serverThatWasNeverThereFailsWithinTheOperationTimeout() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        LockOptions options = contract.options();
        Duration failsWithin = options.operationTimeout().plus(SLACK);
        LockClient nowhere =
                contract.clientAt(contract.fixture().uriVia(new InetSocketAddress("127.0.0.1", closedPort)), options);
        KitTime.Stopwatch acquiring = KitTime.stopwatch();
        assertThatThrownBy(() -> nowhere.lock(contract.lockName()).acquire(Duration.ofSeconds(60)))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(acquiring.millis())
                .as("%s", acquiring)
                .isLessThanOrEqualTo(acquiring.allows(failsWithin).toMillis());
    }
}
