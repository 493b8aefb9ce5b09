package dev.baton.servers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Cluster of embedded masters (and, with {@link #startWithReplicas}, one replica each), each a {@link RedisServer} started with
 * {@code cluster-enabled yes} from the same {@code redis-server} binary, for testing clients that
 * use {@code redis-cluster://} URIs.
 *
 * <p>The bundled binary is Redis 6.2, which has neither {@code redis-cli --cluster} (no redis-cli
 * is shipped) nor {@code CLUSTER ADDSLOTSRANGE} nor {@code cluster-port}; the cluster is therefore
 * joined the way {@code redis-cli --cluster create} does it: every master gets an equal,
 * contiguous range of the 16384 slots ({@code CLUSTER ADDSLOTS}) and its own config epoch, then
 * all meet the first master ({@code CLUSTER MEET}). The cluster bus listens on the client port +
 * 10000, so client ports are chosen below the kernel's ephemeral range with both ports free.
 *
 * <p>Guarantees: once {@link #start(int)} returns, every master reports {@code cluster_state:ok},
 * knows every other master and sees all slots assigned, and master {@code i} owns the slots {@link
 * #firstSlot(int)}..{@link #lastSlot(int)}. Every master announces {@code 127.0.0.1}.
 *
 * <p>Failure behaviour: {@link #start(int)} throws {@link IllegalStateException} when a master
 * cannot start or the cluster does not become healthy within 30 s, after stopping what it started.
 * {@link #close()} stops every master by process id (SIGTERM, then SIGKILL) and deletes their
 * temporary directories; a JVM shutdown hook does the same if it was never called.
 */
public final class RedisClusterServers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisClusterServers.class);

    /** The number of hash slots of every Redis Cluster. */
    public static final int SLOTS = 16384;

    private static final int BUS_PORT_OFFSET = 10000;
    private static final long HEALTHY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final List<RedisServer> masters;
    private final List<RedisServer> replicas = new ArrayList<>();

    private RedisClusterServers(List<RedisServer> masters) {
        this.masters = List.copyOf(masters);
    }

    /**
     * Starts a cluster of three masters.
     *
     * @return a running cluster whose slots are all served; the caller closes it
     * @throws IllegalStateException if a master does not start or the cluster does not become healthy
     */
    public static RedisClusterServers start() {
        return start(3);
    }

    /**
     * Starts a cluster of {@code count} masters, each owning an equal share of the slots.
     *
     * @param count the number of masters, at least 1
     * @return a running cluster whose slots are all served; the caller closes it
     * @throws IllegalArgumentException if {@code count} is less than 1
     * @throws IllegalStateException if a master does not start or the cluster does not become healthy
     */
    public static RedisClusterServers start(int count) {
        return start(count, false);
    }

    /**
     * Starts a cluster of {@code count} masters, each with one replica ({@code CLUSTER REPLICATE},
     * as {@code redis-cli --cluster create --cluster-replicas 1} does). Once it returns, every master
     * also reports its replica connected ({@code connected_slaves:1}) and replica {@code i} ({@link
     * #replicas()}) has synchronised with master {@code i}.
     *
     * @param count the number of masters, at least 1
     * @return a running cluster of {@code 2 * count} nodes; the caller closes it
     * @throws IllegalArgumentException if {@code count} is less than 1
     * @throws IllegalStateException if a node does not start or the cluster does not become healthy
     */
    public static RedisClusterServers startWithReplicas(int count) {
        return start(count, true);
    }

    private static RedisClusterServers start(int count, boolean withReplicas) {
        if (count < 1) {
            throw new IllegalArgumentException("a Redis Cluster needs at least one master, not " + count);
        }
        List<RedisServer> started = new ArrayList<>();
        RedisClusterServers cluster = null;
        try {
            for (int i = 0; i < count; i++) {
                started.add(launchNode());
            }
            cluster = new RedisClusterServers(started);
            cluster.join();
            if (withReplicas) {
                cluster.addReplicas();
            }
            log.info(
                    "started a Redis Cluster of {} masters{} at {}",
                    count,
                    withReplicas ? " with a replica each" : "",
                    cluster.uri());
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(RedisServer::close);
            if (cluster != null) {
                cluster.replicas.forEach(RedisServer::close);
            }
            throw e;
        }
    }

    private static RedisServer launchNode() {
        return RedisServer.launch(
                RedisClusterServers::clientPort,
                List.of(),
                (dir, port) -> Files.writeString(
                        dir.resolve("cluster.conf"),
                        "cluster-enabled yes\n"
                                + "cluster-config-file " + dir.resolve("nodes.conf") + "\n"
                                + "cluster-node-timeout 5000\n"
                                + "cluster-announce-ip " + FreePort.LOOPBACK + "\n",
                        StandardCharsets.UTF_8));
    }

    /**
     * One replica per master: each new node meets the first master, and once it knows its master
     * it is made that master's replica; then waits until every master has its replica connected and
     * in sync.
     */
    private void addReplicas() {
        RedisServer first = masters.get(0);
        for (int i = 0; i < masters.size(); i++) {
            RedisServer replica = launchNode();
            replicas.add(replica);
            expectOk(
                    replica,
                    command(replica.port(), List.of("CLUSTER", "MEET", first.host(), Integer.toString(first.port()))));
        }
        int nodes = masters.size() * 2;
        awaitHealthy(nodes, "all replicas to join");
        for (int i = 0; i < masters.size(); i++) {
            String masterId = command(masters.get(i).port(), List.of("CLUSTER", "MYID"));
            RedisServer replica = replicas.get(i);
            expectOk(replica, command(replica.port(), List.of("CLUSTER", "REPLICATE", masterId)));
        }
        awaitUntil("every master to have its replica connected and in sync", () -> {
            for (int i = 0; i < masters.size(); i++) {
                if (!command(masters.get(i).port(), List.of("INFO", "replication"))
                        .contains("connected_slaves:1")) {
                    return "master on port " + masters.get(i).port() + " has no replica connected yet";
                }
                String replicaInfo = command(replicas.get(i).port(), List.of("INFO", "replication"));
                if (!replicaInfo.contains("master_link_status:up")
                        || !replicaInfo.contains("master_port:" + masters.get(i).port() + "\r")) {
                    return "replica on port " + replicas.get(i).port() + " reports:\n" + replicaInfo;
                }
            }
            return null;
        });
        awaitHealthy(nodes, "the cluster to be healthy with its replicas");
    }

    private void join() {
        int count = masters.size();
        for (int i = 0; i < count; i++) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = firstSlot(i); slot <= lastSlot(i); slot++) {
                addSlots.add(Integer.toString(slot));
            }
            expectOk(i, command(masters.get(i).port(), addSlots));
            // Distinct epochs, as redis-cli gives them, so the masters need not resolve a collision first.
            expectOk(
                    i, command(masters.get(i).port(), List.of("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1))));
        }
        RedisServer first = masters.get(0);
        for (int i = 1; i < count; i++) {
            expectOk(
                    i,
                    command(
                            masters.get(i).port(),
                            List.of("CLUSTER", "MEET", first.host(), Integer.toString(first.port()))));
        }
        awaitHealthy(count, "the cluster to become healthy");
    }

    /** Waits until every node reports {@code cluster_state:ok}, all slots served and {@code nodes} known. */
    private void awaitHealthy(int nodes, String what) {
        List<RedisServer> all = new ArrayList<>(masters);
        all.addAll(replicas);
        awaitUntil(what, () -> {
            for (RedisServer node : all) {
                String info = command(node.port(), List.of("CLUSTER", "INFO"));
                if (!info.contains("cluster_state:ok")
                        || !info.contains("cluster_known_nodes:" + nodes + "\r")
                        || !info.contains("cluster_slots_ok:" + SLOTS + "\r")) {
                    return "node on port " + node.port() + " reports:\n" + info;
                }
            }
            return null;
        });
    }

    /** Polls {@code check} (null: done, else why not) until it is done, for at most 30 s. */
    private static void awaitUntil(String what, java.util.function.Supplier<String> check) {
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT_NANOS;
        long pause = 5;
        while (true) {
            String unhealthy = check.get();
            if (unhealthy == null) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the Redis Cluster: waited 30 s in vain for " + what + "; " + unhealthy);
            }
            try {
                Thread.sleep(pause); // polling a child process we do not otherwise hear from
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while joining the Redis Cluster", e);
            }
            pause = Math.min(100, pause * 2);
        }
    }

    private void expectOk(int master, String reply) {
        expectOk(masters.get(master), reply);
    }

    private static void expectOk(RedisServer node, String reply) {
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException("node on port " + node.port() + " refused to join the cluster: " + reply);
        }
    }

    /**
     * A client port whose cluster bus port (+10000) is free too. Both lie below Linux's ephemeral
     * range (32768+), so outgoing connections do not take them between this check and the bind;
     * a clash is still possible and makes {@link RedisServer#launch} retry with another port.
     */
    private static int clientPort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(10000, 22000);
            if (free(port) && free(port + BUS_PORT_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free pair of loopback ports (p, p+10000) for a Redis Cluster node");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(FreePort.LOOPBACK))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Sends one command in RESP and returns the raw reply (enough for status, error and bulk
     * replies). Bounded by socket timeouts of 5 s.
     */
    static String command(int port, List<String> args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(FreePort.LOOPBACK, port), 5000);
            socket.setSoTimeout(5000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                request.writeBytes(bytes);
                request.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            return readReply(socket.getInputStream());
        } catch (IOException e) {
            throw new IllegalStateException("Redis on port " + port + " did not answer " + args.get(0) + ": " + e, e);
        }
    }

    private static String readReply(InputStream in) throws IOException {
        String line = readLine(in);
        if (line.startsWith("$")) {
            int length = Integer.parseInt(line.substring(1));
            if (length < 0) {
                return "";
            }
            byte[] body = in.readNBytes(length + 2);
            return new String(body, 0, Math.max(0, body.length - 2), StandardCharsets.UTF_8);
        }
        return line;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new IOException("connection closed mid-reply");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }

    /**
     * {@return the first slot master {@code index} owns}
     *
     * @param index the master, 0-based, in slot order
     */
    public int firstSlot(int index) {
        return index * SLOTS / masters.size();
    }

    /**
     * {@return the last slot master {@code index} owns}
     *
     * @param index the master, 0-based, in slot order
     */
    public int lastSlot(int index) {
        return (index + 1) * SLOTS / masters.size() - 1;
    }

    /** {@return the masters, in slot order} */
    public List<RedisServer> masters() {
        return masters;
    }

    /** {@return the replicas, replica {@code i} of master {@code i}; empty unless started with replicas} */
    public List<RedisServer> replicas() {
        return List.copyOf(replicas);
    }

    /**
     * {@return the master that owns {@code slot}}
     *
     * @param slot a hash slot, 0 to 16383
     * @throws IllegalArgumentException if {@code slot} is out of range
     */
    public RedisServer ownerOf(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot " + slot + " is not in 0.." + (SLOTS - 1));
        }
        for (int i = 0; i < masters.size(); i++) {
            if (slot <= lastSlot(i)) {
                return masters.get(i);
            }
        }
        throw new AssertionError("the last master owns the last slot");
    }

    /** {@return a URI naming every master as a seed, e.g. {@code redis-cluster://127.0.0.1:7000,127.0.0.1:7001}} */
    public String uri() {
        return "redis-cluster://"
                + masters.stream().map(m -> m.host() + ":" + m.port()).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        replicas.forEach(RedisServer::close);
        masters.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisClusterServers[" + uri() + "]";
    }
}
