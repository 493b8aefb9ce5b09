package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

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

    private volatile Process process;
    private volatile long logStart;

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
    }

    /** The members of a new cluster of {@code size}, on free loopback ports under {@code base}. */
    static List<EtcdMember> plan(Path binary, Path base, int size, EtcdTls tls) {
        Set<Integer> taken = new HashSet<>();
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(new int[] {freePort(taken), freePort(taken), freePort(taken)});
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

    private static int freePort(Set<Integer> taken) {
        while (true) {
            int port = FreePort.find();
            if (taken.add(port)) {
                return port;
            }
        }
    }

    /** Starts the process; a restarted member finds its data directory and ignores the cluster flags. */
    void spawn() {
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
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        // ETCD_* variables of the caller's environment would override or clash with these flags.
        builder.environment().keySet().removeIf(key -> key.startsWith("ETCD_"));
        try {
            logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + binary + ": " + e, e);
        }
    }

    long pid() {
        Process current = process;
        return current == null || !current.isAlive() ? -1 : current.pid();
    }

    /**
     * @throws EtcdServer.PortClash if the process exited because a port was taken
     * @throws IllegalStateException if it exited for another reason
     */
    void checkAlive() {
        Process current = process;
        if (current != null && !current.isAlive()) {
            String tail = logTail();
            if (tail.contains("address already in use")) {
                throw new EtcdServer.PortClash(tail);
            }
            throw new IllegalStateException(
                    "etcd " + name + " exited with code " + current.exitValue() + " while starting" + tail);
        }
    }

    String logTail() {
        return Files.exists(logFile) ? Posix.tail(logFile, logStart) : "";
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
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(FreePort.LOOPBACK, tls == null ? clientPort : metricsPort), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.0\r\nHost: " + FreePort.LOOPBACK + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ")) {
                return null;
            }
            int body = response.indexOf("\r\n\r\n");
            return body < 0 ? "" : response.substring(body + 4);
        } catch (IOException e) {
            return null;
        }
    }

    /** SIGKILL, then waits for the exit. */
    void kill() {
        Process current = process;
        if (current != null && current.isAlive()) {
            Posix.signal(current.pid(), "CONT"); // a stopped process would not die until continued
            current.destroyForcibly();
            awaitExit(current, 10);
        }
    }

    /** SIGTERM, then SIGKILL after {@code timeoutSeconds}. */
    void stop(long timeoutSeconds) {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        Posix.signal(current.pid(), "CONT");
        current.destroy();
        if (!awaitExit(current, timeoutSeconds)) {
            current.destroyForcibly();
            awaitExit(current, 5);
        }
    }

    private static boolean awaitExit(Process process, long seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return false;
        }
    }
}
