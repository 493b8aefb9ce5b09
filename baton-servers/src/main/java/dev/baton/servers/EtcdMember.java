package dev.baton.servers;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * One etcd member process of an {@link EtcdServer}: its ports, data directory and log, starting and
 * stopping it, and asking its HTTP endpoints whether it is healthy or the leader. The endpoints are
 * read with a plain socket (HTTP/1.0, one request per connection) so that no client library starts
 * threads of its own in the JVM under test; a member whose clients speak TLS serves them on a plain
 * metrics port of its own.
 */
final class EtcdMember {
    final String name;
    final int clientPort;
    final int peerPort;
    final Path dataDir;
    final Path logFile;

    private final Path binary;
    private final String initialCluster;
    private final String clusterToken;
    /** Null for plain connections; else clients speak TLS and show a certificate. */
    private final EtcdTls tls;
    /** A TLS member serves {@code /health} and {@code /metrics} over plain HTTP on this port. */
    private final int metricsPort;

    private final ManagedProcess process;

    EtcdMember(
            Path binary,
            String name,
            int clientPort,
            int peerPort,
            Path dataDir,
            Path logFile,
            String initialCluster,
            String clusterToken,
            EtcdTls tls,
            int metricsPort) {
        this.binary = binary;
        this.name = name;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.initialCluster = initialCluster;
        this.clusterToken = clusterToken;
        this.tls = tls;
        this.metricsPort = metricsPort;
        this.process = ManagedProcess.builder("etcd " + name, logFile)
                // ETCD_* variables of the caller's environment would override or clash with the flags.
                .customize(builder -> builder.environment().keySet().removeIf(key -> key.startsWith("ETCD_")))
                .portTakenWhen("address already in use")
                .deleteOnClose(dataDir, logFile)
                .build();
    }

    /** The members of a new cluster of {@code size}, on free loopback ports under {@code base}. */
    static List<EtcdMember> plan(Path binary, Path base, int size, EtcdTls tls) {
        Set<Integer> taken = new HashSet<>();
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(new int[] {FreePort.findNotIn(taken), FreePort.findNotIn(taken), FreePort.findNotIn(taken)});
        }
        StringBuilder cluster = new StringBuilder();
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                cluster.append(',');
            }
            cluster.append(memberName(i))
                    .append("=http://")
                    .append(FreePort.LOOPBACK)
                    .append(':')
                    .append(ports.get(i)[1]);
        }
        String token = "baton-" + UUID.randomUUID();
        List<EtcdMember> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(new EtcdMember(
                    binary,
                    memberName(i),
                    ports.get(i)[0],
                    ports.get(i)[1],
                    base.resolve(memberName(i)),
                    base.resolve(memberName(i) + ".log"),
                    cluster.toString(),
                    token,
                    tls,
                    ports.get(i)[2]));
        }
        return members;
    }

    static String memberName(int index) {
        return "member" + index;
    }

    /**
     * Starts the process without waiting ({@link ManagedProcess#awaitReady} waits for the members
     * together, as none is healthy before a quorum runs).
     */
    void spawn() {
        process.spawn(command(), clientPort, port -> healthy());
    }

    /** The command line; a restarted member finds its data directory and ignores the cluster flags. */
    private List<String> command() {
        String client = (tls == null ? "http://" : "https://") + FreePort.LOOPBACK + ":" + clientPort;
        String peer = "http://" + FreePort.LOOPBACK + ":" + peerPort;
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--name=" + name,
                "--data-dir=" + dataDir,
                "--listen-client-urls=" + client,
                "--advertise-client-urls=" + client,
                "--listen-peer-urls=" + peer,
                "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=" + initialCluster,
                "--initial-cluster-state=new",
                "--initial-cluster-token=" + clusterToken,
                // Raft defaults (100 ms heartbeat, 1 s election): shorter ones cause needless elections
                // on a loaded 2-core machine. They also set the server's shortest lease TTL to 2 s.
                "--heartbeat-interval=100",
                "--election-timeout=1000",
                // A restarted member does not disrupt the leader before it caught up.
                "--pre-vote=true",
                "--logger=zap",
                "--log-outputs=stderr"));
        if (tls != null) {
            command.addAll(List.of(
                    "--cert-file=" + tls.serverCert(),
                    "--key-file=" + tls.serverKey(),
                    "--client-cert-auth=true",
                    "--trusted-ca-file=" + tls.ca(),
                    "--listen-metrics-urls=http://" + FreePort.LOOPBACK + ":" + metricsPort));
        }
        return command;
    }

    ManagedProcess process() {
        return process;
    }

    /** {@return the pid, or -1 if the member is not running} */
    long pid() {
        return process.isRunning() ? process.pid() : -1;
    }

    String logTail() {
        return process.logTail();
    }

    /** Whether {@code /health} says true: the member serves and sees a leader. */
    boolean healthy() {
        String body = get("/health");
        return body != null && body.replace(" ", "").contains("\"health\":\"true\"");
    }

    /** Whether the member's metrics say it is the leader. */
    boolean isLeader() {
        return metricIsOne("etcd_server_is_leader");
    }

    /** Whether the member's metrics say it knows a leader (false too when it does not answer). */
    boolean hasLeader() {
        return metricIsOne("etcd_server_has_leader");
    }

    private boolean metricIsOne(String metric) {
        String body = get("/metrics");
        if (body == null) {
            return false;
        }
        for (String line : body.split("\n")) {
            if (line.startsWith(metric + " ")) {
                return line.substring(metric.length() + 1).trim().equals("1");
            }
        }
        return false;
    }

    private String get(String path) {
        byte[] reply = FreePort.exchange(
                tls == null ? clientPort : metricsPort,
                "GET " + path + " HTTP/1.0\r\nHost: " + FreePort.LOOPBACK + "\r\n\r\n",
                Integer.MAX_VALUE,
                2000);
        String response = reply == null ? "" : new String(reply, StandardCharsets.UTF_8);
        if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ")) {
            return null;
        }
        int body = response.indexOf("\r\n\r\n");
        return body < 0 ? "" : response.substring(body + 4);
    }

    /** SIGKILL (a crash), then waits for the exit; the data stays. */
    void kill() {
        process.kill();
    }

    /** Kills the member and starts it again on its ports and data; returns once it is healthy. */
    void restart() {
        process.restart(false, Duration.ofSeconds(10));
    }

    /** SIGTERM, SIGKILL after 10 s, and deletes the data directory and log; once. */
    void close() {
        process.close();
    }
}
