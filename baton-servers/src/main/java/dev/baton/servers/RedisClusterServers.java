package dev.baton.servers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Cluster of embedded masters (and, with {@link #startWithReplicas}, replicas of each), each
 * a {@link RedisServer} started with {@code cluster-enabled yes} from the same {@code redis-server}
 * binary, for testing clients that use {@code redis-cluster://} URIs and what happens to them when
 * the cluster fails a master over.
 *
 * <p>The bundled binary is Redis 6.2, which has neither {@code redis-cli --cluster} (no redis-cli
 * is shipped) nor {@code CLUSTER ADDSLOTSRANGE} nor {@code cluster-port}; the cluster is therefore
 * joined the way {@code redis-cli --cluster create} does it: every master gets an equal,
 * contiguous range of the 16384 slots ({@code CLUSTER ADDSLOTS}) and its own config epoch, then
 * all meet the first master ({@code CLUSTER MEET}); replicas meet it too and are then made replicas
 * ({@code CLUSTER REPLICATE}). The cluster bus listens on the client port + 10000, so client ports
 * are chosen below the kernel's ephemeral range with both ports free.
 *
 * <p>Guarantees: once a start method returns, every node reports {@code cluster_state:ok}, knows
 * every other node and sees all slots assigned; master {@code i} owns the slots {@link
 * #firstSlot(int)}..{@link #lastSlot(int)}; with replicas, every master reports all of its replicas
 * connected, each replica has synchronised with its master, and every node knows which replicates
 * which. Every node announces {@code
 * 127.0.0.1}. A node considers another failed after the node timeout ({@code cluster-node-timeout},
 * {@link #DEFAULT_NODE_TIMEOUT} unless given); a master that the majority of masters consider failed
 * is replaced by one of its replicas, and the cluster serves all slots again ({@link #awaitFailover}).
 * Each node keeps its cluster state in {@code nodes.conf} in its own directory, so a node that is
 * {@link RedisServer#restart() restarted} comes back as the same node: a failed-over old master
 * rejoins as a replica of the master that replaced it ({@link #awaitRejoined}), with no keys until it
 * has synchronised (persistence is off).
 *
 * <p>{@link #masters()}, {@link #replicas()} and {@link #ownerOf(int)} describe the cluster as
 * started; {@link #currentMasters()} and {@link #currentReplicasOf(RedisServer)} ask it how it is now.
 *
 * <p>Failure behaviour: start methods throw {@link IllegalStateException} when a node cannot start
 * or the cluster does not become healthy within 30 s, after stopping what they started; the waits
 * throw it with what the nodes report when their time is up. {@link #close()} stops every node by
 * process id (SIGTERM, then SIGKILL) and deletes their temporary directories; a JVM shutdown hook
 * does the same if it was never called.
 */
public final class RedisClusterServers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisClusterServers.class);

    /** The number of hash slots of every Redis Cluster. */
    public static final int SLOTS = 16384;

    /** The {@code cluster-node-timeout} unless one is given: 5 s. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(5);

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
        return startWithReplicas(count, 0, DEFAULT_NODE_TIMEOUT);
    }

    /**
     * Starts a cluster of {@code count} masters, each with one replica (as {@code redis-cli --cluster
     * create --cluster-replicas 1} does); replica {@code i} ({@link #replicas()}) is master {@code
     * i}'s.
     *
     * @param count the number of masters, at least 1
     * @return a running cluster of {@code 2 * count} nodes; the caller closes it
     * @throws IllegalArgumentException if {@code count} is less than 1
     * @throws IllegalStateException if a node does not start or the cluster does not become healthy
     */
    public static RedisClusterServers startWithReplicas(int count) {
        return startWithReplicas(count, 1, DEFAULT_NODE_TIMEOUT);
    }

    /**
     * Starts a cluster of {@code count} masters, each with {@code replicasPerMaster} replicas, whose
     * nodes consider another failed after {@code nodeTimeout}. A failover needs a majority of masters
     * to agree, so a cluster that should survive the loss of a master has at least three.
     *
     * @param count the number of masters, at least 1
     * @param replicasPerMaster replicas of each master, 0 or more
     * @param nodeTimeout the {@code cluster-node-timeout}, at least 100 ms
     * @return a running cluster of {@code count * (1 + replicasPerMaster)} nodes; the caller closes it
     * @throws IllegalArgumentException if an argument is out of range
     * @throws IllegalStateException if a node does not start or the cluster does not become healthy
     */
    public static RedisClusterServers startWithReplicas(int count, int replicasPerMaster, Duration nodeTimeout) {
        if (count < 1) {
            throw new IllegalArgumentException("a Redis Cluster needs at least one master, not " + count);
        }
        if (replicasPerMaster < 0) {
            throw new IllegalArgumentException("the replicas per master must be 0 or more, not " + replicasPerMaster);
        }
        if (nodeTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("the node timeout must be at least 100 ms, not " + nodeTimeout);
        }
        List<RedisServer> started = new ArrayList<>();
        RedisClusterServers cluster = null;
        try {
            for (int i = 0; i < count; i++) {
                started.add(ClusterJoin.launchNode(nodeTimeout));
            }
            cluster = new RedisClusterServers(started);
            ClusterJoin.join(started);
            if (replicasPerMaster > 0) {
                ClusterJoin.addReplicas(started, cluster.replicas, replicasPerMaster, nodeTimeout);
            }
            log.info(
                    "started a Redis Cluster of {} masters with {} replicas each at {}",
                    count,
                    replicasPerMaster,
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

    /**
     * {@return the replicas as started: those of master 0, then those of master 1, and so on (with one
     * replica per master, replica {@code i} is master {@code i}'s); empty unless started with replicas}
     */
    public List<RedisServer> replicas() {
        return List.copyOf(replicas);
    }

    /** {@return every node: the masters, then the replicas, as started} */
    public List<RedisServer> nodes() {
        return Stream.concat(masters.stream(), replicas.stream()).toList();
    }

    /**
     * Asks the cluster which nodes are masters serving slots now (in the view of the first running
     * node that answers; nodes it considers failed are left out).
     *
     * @return the serving masters, in the order of {@link #nodes()}
     * @throws IllegalStateException if no node answers
     */
    public List<RedisServer> currentMasters() {
        ClusterNodes view = view();
        return nodes().stream().filter(node -> view.serving(node.port())).toList();
    }

    /**
     * Asks the cluster which nodes replicate {@code master} now (in the view of {@code master} itself
     * if it answers, else as {@link #currentMasters()} does).
     *
     * @param master a node of this cluster
     * @return its replicas that the cluster does not consider failed, in the order of {@link #nodes()}
     * @throws IllegalStateException if no node answers or none knows {@code master}
     */
    public List<RedisServer> currentReplicasOf(RedisServer master) {
        ClusterNodes view =
                view(Stream.concat(Stream.of(master), nodes().stream()).toList());
        ClusterNodes.Node known = view.at(master.port());
        if (known == null) {
            throw new IllegalStateException("no node of the Redis Cluster knows a node on port " + master.port());
        }
        return nodes().stream()
                .filter(node -> view.replicates(node.port(), known))
                .toList();
    }

    /**
     * {@return how many keys on {@code node} match the glob {@code pattern} ({@code KEYS}: for the small
     * data sets of tests)}
     *
     * @param node a node of this cluster
     * @param pattern a glob, such as {@code baton:*}
     * @throws IllegalStateException if the node does not answer
     */
    public long countKeys(RedisServer node, String pattern) {
        Object reply = Resp.call(node.port(), "KEYS", pattern);
        if (!(reply instanceof List<?> keys)) {
            throw new IllegalStateException("Redis on port " + node.port() + " answered KEYS with " + reply);
        }
        return keys.size();
    }

    /**
     * Waits until the cluster has replaced {@code previous} (a master just killed or paused): every
     * running node except {@code previous} reports {@code cluster_state:ok} with all slots served,
     * they agree on which node is a master and which replicates which, and one of {@code candidates}
     * (its replicas before) is a master serving slots in place of {@code previous}.
     *
     * @param previous the master that was taken down
     * @param candidates its replicas before ({@link #currentReplicasOf}), one of which takes its place
     * @param timeout the longest time to wait
     * @return the promoted replica
     * @throws IllegalStateException if that does not happen within {@code timeout}, with what each
     *     node reports
     */
    public RedisServer awaitFailover(RedisServer previous, List<RedisServer> candidates, Duration timeout) {
        List<RedisServer> others =
                nodes().stream().filter(node -> node != previous).toList();
        RedisServer[] promoted = new RedisServer[1];
        long start = System.nanoTime();
        ClusterJoin.awaitUntil(nodes(), "a replica of port " + previous.port() + " to take its place", timeout, () -> {
            if (!settled(others)) {
                return false;
            }
            ClusterNodes view = view(others);
            if (view.serving(previous.port())) {
                return false;
            }
            promoted[0] = candidates.stream()
                    .filter(c -> view.serving(c.port()))
                    .findFirst()
                    .orElse(null);
            return promoted[0] != null;
        });
        log.info(
                "the Redis Cluster failed port {} over to port {} ({} ms after the wait began)",
                previous.port(),
                promoted[0].port(),
                (System.nanoTime() - start) / 1_000_000);
        return promoted[0];
    }

    /**
     * Waits until {@code node} (an old master {@link RedisServer#restart() restarted} after a failover,
     * or a restarted replica) serves as a replica again: it says it is one, its replication link to
     * the master it names is up, every running node reports {@code cluster_state:ok}, and they agree
     * on which node is a master and which replicates which (so that the views {@link
     * #currentMasters()} and {@link #currentReplicasOf} read are whole again).
     *
     * @param node the restarted node
     * @param timeout the longest time to wait
     * @throws IllegalStateException if that does not happen within {@code timeout}, with what each
     *     node reports
     */
    public void awaitRejoined(RedisServer node, Duration timeout) {
        long start = System.nanoTime();
        ClusterJoin.awaitUntil(nodes(), "port " + node.port() + " to rejoin as a replica", timeout, () -> {
            Object info = Resp.call(node.port(), "INFO", "replication");
            if (!"slave".equals(Resp.infoField(info, "role"))
                    || !"up".equals(Resp.infoField(info, "master_link_status"))) {
                return false;
            }
            return settled(nodes());
        });
        log.info(
                "port {} rejoined the Redis Cluster as a replica ({} ms after the wait began)",
                node.port(),
                (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Whether the running nodes of {@code among} all report {@code cluster_state:ok} with all slots
     * served and agree on each other ({@link ClusterNodes#agree}).
     */
    private static boolean settled(List<RedisServer> among) {
        List<RedisServer> running =
                among.stream().filter(RedisServer::isRunning).toList();
        if (!running.stream().allMatch(node -> ClusterJoin.healthy(node, -1))) {
            return false;
        }
        return ClusterNodes.agree(
                running.stream().map(node -> ClusterNodes.of(node.port())).toList());
    }

    private ClusterNodes view() {
        return view(nodes());
    }

    /** The view of the first running node of {@code from} that answers. */
    private static ClusterNodes view(List<RedisServer> from) {
        IllegalStateException last = null;
        for (RedisServer node : from) {
            if (node.isRunning()) {
                try {
                    return ClusterNodes.of(node.port());
                } catch (IllegalStateException e) {
                    last = e;
                }
            }
        }
        throw new IllegalStateException("no node of the Redis Cluster answered CLUSTER NODES", last);
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

    /**
     * {@return {@link #uri()} with a query, e.g. {@code redis-cluster://127.0.0.1:7000,...?waitReplicas=0}}
     *
     * @param query URI parameters without the {@code ?}; not encoded
     */
    public String uri(String query) {
        return uri() + "?" + query;
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
