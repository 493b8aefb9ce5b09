package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testsupport.TestTime;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

class ZooKeeperServerTest {

    @Test
    void singleServerAnswersOnLoopbackAndStops() throws IOException {
        InetSocketAddress address;
        try (ZooKeeperServer server = ZooKeeperServer.start()) {
            assertThat(server.size()).isEqualTo(1);
            address = server.address(0);
            assertThat(server.connectString()).isEqualTo("127.0.0.1:" + address.getPort());
            assertThat(ZooKeeperServer.srvr(address)).contains("Zookeeper version");
            // The server's threads, also those started after it was up, are told apart from others.
            assertThat(liveServerThreadNames(server))
                    .anyMatch(name -> name.startsWith("SyncThread"))
                    .anyMatch(name -> name.startsWith("NIOServerCxnFactory"))
                    .anyMatch(name -> name.startsWith("NIOWorkerThread"));
            assertThat(server.isServerThread(Thread.currentThread())).isFalse();
            assertThatThrownBy(() -> server.kill(0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("ensemble");
        }
        assertThatThrownBy(() -> ZooKeeperServer.srvr(address)).isInstanceOf(IOException.class);
    }

    @Test
    void ensembleOfThreeSurvivesOneKilledServer() throws IOException {
        try (ZooKeeperServer ensemble = ZooKeeperServer.startEnsemble(3)) {
            assertThat(ensemble.size()).isEqualTo(3);
            assertThat(ensemble.connectString().split(",")).hasSize(3);
            ensemble.kill(0);
            assertThatThrownBy(() -> ZooKeeperServer.srvr(ensemble.address(0))).isInstanceOf(IOException.class);
            // kill returns once the peer's main thread has ended: only the two others are left.
            assertThat(liveServerThreadNames(ensemble))
                    .filteredOn(name -> name.startsWith("QuorumPeer[myid="))
                    .map(name -> name.substring(0, name.indexOf(']') + 1))
                    .containsExactlyInAnyOrder("QuorumPeer[myid=2]", "QuorumPeer[myid=3]");
            ensemble.restart(0);
            // restart returns once the peer serves again.
            assertThat(ZooKeeperServer.srvr(ensemble.address(0))).contains("Mode: ");
            // The restarted peer's threads are known as server threads too.
            assertThat(liveServerThreadNames(ensemble))
                    .filteredOn(name -> name.startsWith("QuorumPeer[myid="))
                    .map(name -> name.substring(0, name.indexOf(']') + 1))
                    .containsExactlyInAnyOrder("QuorumPeer[myid=1]", "QuorumPeer[myid=2]", "QuorumPeer[myid=3]");
        }
    }

    /** A client that asks for 30 s gets the maximum, as from a production server's 20 ticks. */
    @Test
    void aServerStartedWithAMaximumSessionTimeoutLowersTheOneAskedFor() throws Exception {
        try (ZooKeeperServer server = ZooKeeperServer.start(Duration.ofSeconds(1))) {
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper client = new ZooKeeper(server.connectString(), 30_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                assertThat(connected.await(TestTime.COLD_START.toMillis(), TimeUnit.MILLISECONDS))
                        .isTrue();
                assertThat(client.getSessionTimeout()).isEqualTo(1000);
            } finally {
                client.close();
            }
        }
        assertThatThrownBy(() -> ZooKeeperServer.start(Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("500 ms to 60000 ms");
    }

    private static java.util.List<String> liveServerThreadNames(ZooKeeperServer server) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(server::isServerThread)
                .map(Thread::getName)
                .toList();
    }
}
