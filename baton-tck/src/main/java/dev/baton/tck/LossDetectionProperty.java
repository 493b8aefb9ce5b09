package dev.baton.tck;

import static dev.baton.tck.KitTime.OPERATION_TIMEOUT;
import static dev.baton.tck.KitTime.SLACK;
import static dev.baton.tck.KitTime.millisSince;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockUnavailableException;
import dev.baton.testsupport.TcpProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
        Lease held = viaProxy.lock(name).acquire(Duration.ofSeconds(10));
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        assertThat(held.isValid()).isTrue();

        proxy.cut();
        LockLostException reported =
                lost.get(lease.plus(OPERATION_TIMEOUT).plus(SLACK).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reported).hasMessageContaining(name);
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::checkValid).isInstanceOf(LockLostException.class);
        CompletableFuture<LockLostException> late = new CompletableFuture<>();
        held.onLost(late::complete);
        assertThat(late).as("a listener added after the loss is called at once").isCompleted();

        try (Lease next = contract.client().lock(name).acquire(lease.plus(SLACK))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        held.close(); // never throws for a lost lease
    }

    @Test
    void unreachableBackendFailsWithinTheOperationTimeout() {
        String name = contract.lockName();
        TcpProxy proxy = contract.track(TcpProxy.start(contract.fixture().serverAddress()));
        LockClient viaProxy = contract.clientAt(contract.fixture().uriVia(proxy.address()), contract.options());
        viaProxy.lock(name).acquire(Duration.ofSeconds(10)).close();
        proxy.cut();

        long start = System.nanoTime();
        assertThatThrownBy(() -> viaProxy.lock(name).acquire(Duration.ofSeconds(60)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(name);
        assertThat(millisSince(start))
                .isLessThanOrEqualTo(OPERATION_TIMEOUT.plus(SLACK).toMillis());

        start = System.nanoTime();
        assertThatThrownBy(() -> viaProxy.lock(name).tryAcquire()).isInstanceOf(LockUnavailableException.class);
        assertThat(millisSince(start))
                .isLessThanOrEqualTo(OPERATION_TIMEOUT.plus(SLACK).toMillis());

        proxy.restore();
        try (Lease lease = viaProxy.lock(name).acquire(Duration.ofSeconds(10))) {
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
        LockClient nowhere = contract.clientAt(
                contract.fixture().uriVia(new InetSocketAddress("127.0.0.1", closedPort)), contract.options());
        long start = System.nanoTime();
        assertThatThrownBy(() -> nowhere.lock(contract.lockName()).acquire(Duration.ofSeconds(60)))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(millisSince(start))
                .isLessThanOrEqualTo(OPERATION_TIMEOUT.plus(SLACK).toMillis());
    }
}
