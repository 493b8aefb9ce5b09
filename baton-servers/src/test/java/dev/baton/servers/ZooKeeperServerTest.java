package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ZooKeeperServerTest {

    /** ZooKeeper's four-letter "srvr" command: the server answers with its mode and version. */
    private static String srvr(InetSocketAddress address) throws IOException {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    @Test
    void singleServerAnswersOnLoopbackAndStops() throws IOException {
        InetSocketAddress address;
        try (ZooKeeperServer server = ZooKeeperServer.start()) {
            assertThat(server.size()).isEqualTo(1);
            address = server.address(0);
            assertThat(server.connectString()).isEqualTo("127.0.0.1:" + address.getPort());
            assertThat(srvr(address)).contains("Zookeeper version");
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
        assertThatThrownBy(() -> srvr(address)).isInstanceOf(IOException.class);
    }

    @Test
    void ensembleOfThreeSurvivesOneKilledServer() throws IOException {
        try (ZooKeeperServer ensemble = ZooKeeperServer.startEnsemble(3)) {
            assertThat(ensemble.size()).isEqualTo(3);
            assertThat(ensemble.connectString().split(",")).hasSize(3);
            ensemble.kill(0);
            assertThatThrownBy(() -> srvr(ensemble.address(0))).isInstanceOf(IOException.class);
            ensemble.restart(0);
            assertThat(liveServerThreadNames(ensemble))
                    .filteredOn(name -> name.startsWith("QuorumPeer[myid="))
                    .hasSize(3);
        }
    }

    private static java.util.List<String> liveServerThreadNames(ZooKeeperServer server) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(server::isServerThread)
                .map(Thread::getName)
                .toList();
    }
}
