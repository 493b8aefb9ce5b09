package dev.baton.servers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/**
 * How {@link RedisClusterServers} launches its nodes and joins them into one cluster, as {@code
 * redis-cli --cluster create} does (see there), and the health checks it waits on.
 */
final class ClusterJoin {
    private static final int BUS_PORT_OFFSET = 10000;
    private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(30);

    private ClusterJoin() {}

    /** A node with {@code cluster-enabled yes}, its state in {@code nodes.conf} in its own directory. */
    static RedisServer launchNode(Duration nodeTimeout) {
        return RedisServer.launch(
                ClusterJoin::clientPort,
                List.of(),
                (dir, port) -> Files.writeString(
                        dir.resolve("cluster.conf"),
                        "cluster-enabled yes\n"
                                + "cluster-config-file " + dir.resolve("nodes.conf") + "\n"
                                + "cluster-node-timeout " + nodeTimeout.toMillis() + "\n"
                                + "cluster-announce-ip " + FreePort.LOOPBACK + "\n",
                        StandardCharsets.UTF_8));
    }

    /**
     * Gives master {@code i} slots {@code first(i)}..{@code last(i)} and epoch {@code i + 1}, makes
     * them all meet the first, and waits until the cluster is healthy.
     */
    static void join(List<RedisServer> masters) {
        int count = masters.size();
        for (int i = 0; i < count; i++) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = i * RedisClusterServers.SLOTS / count;
                    slot < (i + 1) * RedisClusterServers.SLOTS / count;
                    slot++) {
                addSlots.add(Integer.toString(slot));
            }
            RedisServer master = masters.get(i);
            expectOk(master, Resp.call(master.port(), addSlots.toArray(String[]::new)));
            // Distinct epochs, as redis-cli gives them, so the masters need not resolve a collision first.
            expectOk(master, Resp.call(master.port(), "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1)));
        }
        RedisServer first = masters.get(0);
        for (int i = 1; i < count; i++) {
            RedisServer master = masters.get(i);
            expectOk(master, Resp.call(master.port(), "CLUSTER", "MEET", first.host(), Integer.toString(first.port())));
        }
        awaitHealthy(masters, "the cluster to become healthy");
    }

    /**
     * Launches {@code perMaster} replicas of every master into {@code replicas} (those of master 0
     * first): each new node meets the first master, and once every node knows every other it is made
     * its master's replica; then waits until every master has its replicas connected and in sync,
     * and every node's {@code CLUSTER NODES} says which replicates which.
     */
    static void addReplicas(
            List<RedisServer> masters, List<RedisServer> replicas, int perMaster, Duration nodeTimeout) {
        RedisServer first = masters.get(0);
        for (int i = 0; i < masters.size() * perMaster; i++) {
            RedisServer replica = launchNode(nodeTimeout);
            replicas.add(replica);
            expectOk(
                    replica,
                    Resp.call(replica.port(), "CLUSTER", "MEET", first.host(), Integer.toString(first.port())));
        }
        List<RedisServer> all = new ArrayList<>(masters);
        all.addAll(replicas);
        awaitHealthy(all, "all replicas to join");
        for (int i = 0; i < replicas.size(); i++) {
            RedisServer master = masters.get(i / perMaster);
            RedisServer replica = replicas.get(i);
            String masterId = String.valueOf(Resp.call(master.port(), "CLUSTER", "MYID"));
            expectOk(replica, Resp.call(replica.port(), "CLUSTER", "REPLICATE", masterId));
        }
        awaitUntil(all, "every master to have its replicas connected and in sync", HEALTHY_TIMEOUT, () -> {
            for (RedisServer master : masters) {
                Object info = Resp.call(master.port(), "INFO", "replication");
                if (!Integer.toString(perMaster).equals(Resp.infoField(info, "connected_slaves"))) {
                    return false;
                }
            }
            for (int i = 0; i < replicas.size(); i++) {
                if (!replicating(replicas.get(i), masters.get(i / perMaster))) {
                    return false;
                }
            }
            // and every node has heard so (the cluster bus gossips roles), so that any node's view is whole
            for (RedisServer node : all) {
                ClusterNodes view = ClusterNodes.of(node.port());
                for (int i = 0; i < replicas.size(); i++) {
                    ClusterNodes.Node master =
                            view.at(masters.get(i / perMaster).port());
                    if (master == null || !view.replicates(replicas.get(i).port(), master)) {
                        return false;
                    }
                }
            }
            return true;
        });
        awaitHealthy(all, "the cluster to be healthy with its replicas");
    }

    /** Whether {@code replica} has its replication link to {@code master} up. */
    static boolean replicating(RedisServer replica, RedisServer master) {
        Object info = Resp.call(replica.port(), "INFO", "replication");
        return "up".equals(Resp.infoField(info, "master_link_status"))
                && Integer.toString(master.port()).equals(Resp.infoField(info, "master_port"));
    }

    /** Waits until every node of {@code nodes} is {@link #healthy} and knows them all. */
    private static void awaitHealthy(List<RedisServer> nodes, String what) {
        awaitUntil(nodes, what, HEALTHY_TIMEOUT, () -> nodes.stream().allMatch(node -> healthy(node, nodes.size())));
    }

    /**
     * Whether {@code node} reports {@code cluster_state:ok} and all slots served, and knows {@code
     * known} nodes (any number when negative).
     */
    static boolean healthy(RedisServer node, int known) {
        Object info = Resp.call(node.port(), "CLUSTER", "INFO");
        return "ok".equals(Resp.infoField(info, "cluster_state"))
                && (known < 0 || Integer.toString(known).equals(Resp.infoField(info, "cluster_known_nodes")))
                && Integer.toString(RedisClusterServers.SLOTS).equals(Resp.infoField(info, "cluster_slots_ok"));
    }

    /** {@link Await#until} with what every node of {@code nodes} says of the cluster when the time is up. */
    static void awaitUntil(List<RedisServer> nodes, String what, Duration timeout, BooleanSupplier condition) {
        Await.until("the Redis Cluster: " + what, timeout, condition, () -> report(nodes));
    }

    private static String report(List<RedisServer> nodes) {
        StringBuilder out = new StringBuilder();
        for (RedisServer node : nodes) {
            out.append("\nnode on port ").append(node.port()).append(": ");
            if (!node.isRunning()) {
                out.append("not running");
                continue;
            }
            try {
                Object info = Resp.call(node.port(), "CLUSTER", "INFO");
                out.append("cluster_state:")
                        .append(Resp.infoField(info, "cluster_state"))
                        .append(", known nodes ")
                        .append(Resp.infoField(info, "cluster_known_nodes"))
                        .append(", slots ok ")
                        .append(Resp.infoField(info, "cluster_slots_ok"))
                        .append(", role ")
                        .append(Resp.infoField(Resp.call(node.port(), "INFO", "replication"), "role"));
            } catch (IllegalStateException e) {
                out.append(e.getMessage());
            }
        }
        return out.toString();
    }

    private static void expectOk(RedisServer node, Object reply) {
        if (!"OK".equals(reply)) {
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
}
