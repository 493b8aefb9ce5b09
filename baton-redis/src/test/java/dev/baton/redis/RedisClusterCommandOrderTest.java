package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.RedisClusterServers;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a Redis Cluster, one client's commands for one master go on one connection, so that they run
 * in the order sent. A clean-up sent without waiting (an interrupted waiter leaving the queue) relies
 * on it to run before the client's next attempt: were grants sent on a node connection asked for by
 * node id (for their {@code WAIT}) and releases on the connection the cluster connection routes a
 * slot to (asked for by host and port), Lettuce would hold two connections to the master, and an
 * interrupted waiter's own client could be refused the free lock (its queue entry, left by a
 * clean-up still on the other connection, ahead of it).
 */
@Timeout(60)
class RedisClusterCommandOrderTest {
    private static final Pattern CLIENT = Pattern.compile("^\\+[0-9.]+ \\[\\d+ ([^\\]]+)\\] ");

    @Test
    void aClientsGrantAndReleaseReachTheMasterOnOneConnection() throws IOException {
        String name = "order-" + UUID.randomUUID();
        String lockKey = new RedisKeys(RedisKeys.DEFAULT_PREFIX).keys(name)[0];
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(5))
                .operationTimeout(KitTime.operationTimeout())
                .build();
        try (RedisClusterServers cluster = RedisClusterServers.start(1);
                Monitor monitor = Monitor.on(cluster.masters().get(0));
                LockClient client = Baton.connect(cluster.uri(), options)) {
            // The grant goes with its INFO replication on the routed node connection; the release
            // through the cluster connection's routing by slot.
            client.lock(name).acquire(KitTime.grant()).close();
            Await.condition(
                    "the grant and the release in MONITOR's feed",
                    KitTime.grant(),
                    () -> monitor.clientsSending(lockKey).size() >= 1 && monitor.linesWith(lockKey) >= 2,
                    () -> "seen: " + monitor.lines);
            assertThat(monitor.clientsSending(lockKey))
                    .as("connections the lock's commands came on (client address per MONITOR line)")
                    .hasSize(1);
        }
    }

    /** A MONITOR connection to one server, its feed collected by a thread of its own. */
    private static final class Monitor implements AutoCloseable {
        final Queue<String> lines = new ConcurrentLinkedQueue<>();
        private final Socket socket;

        private Monitor(Socket socket) {
            this.socket = socket;
        }

        static Monitor on(RedisServer server) throws IOException {
            Socket socket = new Socket(server.host(), server.port());
            Monitor monitor = new Monitor(socket);
            OutputStream out = socket.getOutputStream();
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            if (!"+OK".equals(in.readLine())) {
                throw new IOException("MONITOR refused on " + server);
            }
            Thread reader = new Thread(
                    () -> {
                        try {
                            for (String line = in.readLine(); line != null; line = in.readLine()) {
                                monitor.lines.add(line);
                            }
                        } catch (IOException closed) {
                            // the test closed the socket
                        }
                    },
                    "monitor-" + server.port());
            reader.setDaemon(true);
            reader.start();
            return monitor;
        }

        long linesWith(String key) {
            return lines.stream()
                    .filter(line -> line.contains('"' + key + '"') && !line.contains(" lua]"))
                    .count();
        }

        /** The client addresses of the commands naming {@code key} (not the calls scripts made). */
        List<String> clientsSending(String key) {
            return lines.stream()
                    .filter(line -> line.contains('"' + key + '"'))
                    .map(CLIENT::matcher)
                    .filter(Matcher::find)
                    .map(m -> m.group(1))
                    .filter(client -> !client.equals("lua"))
                    .distinct()
                    .toList();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
