package dev.baton.servers;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis master, optionally with replicas, watched by one Sentinel, all embedded (see {@link
 * RedisServer}), for testing clients that find the master through Sentinel ({@code
 * redis-sentinel://} URIs) and what happens to them when Sentinel fails the master over.
 *
 * <p>Guarantees: once {@link #start()} or {@link #startWithReplicas(int)} returns, the master and
 * the Sentinel answer, the Sentinel monitors the master under the name {@link #MASTER_NAME} (quorum
 * 1), every replica ({@code replicaof} the master) is in sync with it, and the Sentinel knows every
 * replica, so it can promote one. The Sentinel considers the master down after {@value
 * #DOWN_AFTER_MILLIS} ms without an answer ({@code down-after-milliseconds}) with a {@code
 * failover-timeout} of {@value #FAILOVER_TIMEOUT_MILLIS} ms: once the master is killed (or paused),
 * it promotes a replica within a few seconds. One Sentinel is enough for that; it is not a highly
 * available set-up (the Sentinel itself is a single point of failure).
 *
 * <p>Replication is asynchronous, as in production: a write acknowledged by the master reaches the
 * replicas shortly after, and is lost by a failover if it had not reached the promoted replica
 * (unless the writer waited for it with {@code WAIT}). Every data node runs from a config file that
 * the Sentinel may rewrite ({@code CONFIG REWRITE}), so a node that is {@link RedisServer#restart()
 * restarted} after a failover comes back with the role the Sentinel gave it last; a killed old
 * master comes back as an empty master, which the Sentinel turns into a replica of the new master
 * once it notices it (after several seconds).
 *
 * <p>Failure behaviour: start methods throw {@link IllegalStateException} when a process cannot
 * start or replication or the Sentinel is not ready within 30 s, after stopping what they started;
 * {@link #awaitFailover} throws {@link IllegalStateException} with the Sentinel's view and log when
 * no other master is reported in time. {@link #close()} stops every process and deletes their
 * directories.
 */
public final class RedisSentinelServers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisSentinelServers.class);

    /** The name the Sentinel monitors the master under. */
    public static final String MASTER_NAME = "baton-master";

    /** The Sentinel's {@code down-after-milliseconds}. */
    public static final int DOWN_AFTER_MILLIS = 1000;

    /** The Sentinel's {@code failover-timeout}. */
    public static final int FAILOVER_TIMEOUT_MILLIS = 5000;

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration DEFAULT_FAILOVER_WAIT = Duration.ofSeconds(30);

    private final List<RedisServer> nodes; // the first master, then the replicas in start order
    private final RedisServer sentinel;
    private volatile RedisServer master;

    private RedisSentinelServers(List<RedisServer> nodes, RedisServer sentinel) {
        this.nodes = List.copyOf(nodes);
        this.sentinel = sentinel;
        this.master = nodes.get(0);
    }

    /**
     * Starts a master without replicas, then a Sentinel that monitors it (it cannot fail over).
     *
     * @return the running master and Sentinel; the caller closes them
     * @throws IllegalStateException if a process does not start or the Sentinel does not see the
     *     master
     */
    public static RedisSentinelServers start() {
        return startWithReplicas(0);
    }

    /**
     * Starts a master and {@code replicas} replicas of it, waits until they are in sync, then starts
     * a Sentinel that monitors the master and waits until it knows every replica.
     *
     * @param replicas how many replicas to start, 0 or more; a failover needs at least one
     * @return the running nodes and Sentinel; the caller closes them
     * @throws IllegalArgumentException if {@code replicas} is negative
     */
    public static RedisSentinelServers startWithReplicas(int replicas) {
        if (replicas < 0) {
            throw new IllegalArgumentException("the number of replicas must be 0 or more, not " + replicas);
        }
        List<RedisServer> started = new ArrayList<>();
        try {
            RedisServer first = dataNode(null);
            started.add(first);
            for (int i = 0; i < replicas; i++) {
                started.add(dataNode(first));
            }
            if (replicas > 0) {
                awaitUntil(
                        "the master on port " + first.port() + " to have " + replicas + " replicas in sync",
                        () -> onlineReplicas(first) == replicas,
                        () -> "; master reports: " + Resp.call(first.port(), "INFO", "replication"));
            }
            RedisServer sentinel = RedisServer.launch(
                    FreePort::find,
                    List.of("--sentinel"),
                    (dir, port) -> Files.writeString(
                            dir.resolve("sentinel.conf"),
                            "sentinel monitor " + MASTER_NAME + " " + first.host() + " " + first.port() + " 1\n"
                                    + "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS
                                    + "\n"
                                    + "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS
                                    + "\n",
                            StandardCharsets.UTF_8));
            started.add(sentinel);
            RedisSentinelServers servers = new RedisSentinelServers(started.subList(0, replicas + 1), sentinel);
            if (replicas > 0) {
                awaitUntil(
                        "the Sentinel to know all " + replicas + " replicas",
                        () -> servers.knownReplicas() == replicas,
                        () -> "; it reports: " + Resp.call(sentinel.port(), "SENTINEL", "replicas", MASTER_NAME)
                                + Posix.tail(sentinel.logFile(), 0));
            }
            log.info(
                    "started a Sentinel on port {} watching a master on port {} with {} replicas",
                    sentinel.port(),
                    first.port(),
                    replicas);
            return servers;
        } catch (RuntimeException e) {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
            throw e;
        }
    }

    /** A data node with a config file of its own (the Sentinel rewrites it), replica of {@code master} if given. */
    private static RedisServer dataNode(RedisServer master) {
        return RedisServer.launch(
                FreePort::find,
                List.of(),
                (dir, port) -> Files.writeString(
                        dir.resolve("redis.conf"),
                        master == null ? "" : "replicaof " + master.host() + " " + master.port() + "\n",
                        StandardCharsets.UTF_8));
    }

    /** Replicas the master reports as {@code state=online}. */
    private static int onlineReplicas(RedisServer master) {
        Object info = Resp.call(master.port(), "INFO", "replication");
        int online = 0;
        for (int i = 0; ; i++) {
            String replica = Resp.infoField(info, "slave" + i);
            if (replica == null) {
                return online;
            }
            if (replica.contains("state=online")) {
                online++;
            }
        }
    }

    /** Replicas the Sentinel lists for the master that it does not consider down or disconnected. */
    private int knownReplicas() {
        Object reply = Resp.call(sentinel.port(), "SENTINEL", "replicas", MASTER_NAME);
        if (!(reply instanceof List<?> replicas)) {
            return -1;
        }
        int known = 0;
        for (Object replica : replicas) {
            if (replica instanceof List<?> fields && "slave".equals(field(fields, "flags"))) {
                known++;
            }
        }
        return known;
    }

    private static Object field(List<?> flat, String name) {
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            if (name.equals(flat.get(i))) {
                return flat.get(i + 1);
            }
        }
        return null;
    }

    /**
     * {@return the master as this object last learned it: the first master until {@link
     * #awaitFailover} or {@link #killMasterAndAwaitFailover} saw another one} No I/O.
     */
    public RedisServer master() {
        return master;
    }

    /** {@return every data node except {@link #master()}, running or not (a killed old master stays listed)} */
    public List<RedisServer> replicas() {
        RedisServer current = master;
        return nodes.stream().filter(node -> node != current).toList();
    }

    /** {@return every data node: the first master, then the replicas in start order} */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** {@return the Sentinel process} */
    public RedisServer sentinel() {
        return sentinel;
    }

    /**
     * Asks the Sentinel which node is the master now ({@code SENTINEL get-master-addr-by-name}).
     *
     * @return the node of this set-up that the Sentinel names
     * @throws IllegalStateException if the Sentinel does not answer or names no node of this set-up
     */
    public RedisServer currentMaster() {
        Object reply = Resp.call(sentinel.port(), "SENTINEL", "get-master-addr-by-name", MASTER_NAME);
        if (reply instanceof List<?> address && address.size() == 2) {
            String port = String.valueOf(address.get(1));
            for (RedisServer node : nodes) {
                if (Integer.toString(node.port()).equals(port)) {
                    return node;
                }
            }
        }
        throw new IllegalStateException("the Sentinel on port " + sentinel.port() + " names " + reply
                + " as the master of " + MASTER_NAME + ", which is none of the nodes on ports "
                + nodes.stream().map(RedisServer::port).toList());
    }

    /**
     * {@link #killMasterAndAwaitFailover(Duration)} waiting up to 30 s.
     *
     * @return the new master
     * @throws IllegalStateException if no other master is reported within 30 s
     */
    public RedisServer killMasterAndAwaitFailover() {
        return killMasterAndAwaitFailover(DEFAULT_FAILOVER_WAIT);
    }

    /**
     * Kills {@link #master()} with SIGKILL and waits until the Sentinel has promoted another node
     * (see {@link #awaitFailover}).
     *
     * @param timeout the longest time to wait for the promotion
     * @return the new master
     * @throws IllegalStateException if no other master is reported within {@code timeout}
     */
    public RedisServer killMasterAndAwaitFailover(Duration timeout) {
        RedisServer old = master;
        old.kill();
        return awaitFailover(old, timeout);
    }

    /**
     * Waits until the Sentinel reports a master other than {@code previous} and that node says it is
     * a master ({@code ROLE}), then makes it {@link #master()}. For callers that take the master down
     * in another way than {@link #killMasterAndAwaitFailover} (a pause, a network cut).
     *
     * @param previous the master that was taken down
     * @param timeout the longest time to wait for the promotion
     * @return the new master
     * @throws IllegalStateException if no other master is reported within {@code timeout}, with what
     *     the Sentinel reports and the end of its log
     */
    public RedisServer awaitFailover(RedisServer previous, Duration timeout) {
        RedisServer[] promoted = new RedisServer[1];
        Await.until(
                "the Sentinel to promote a replica in place of the master on port " + previous.port(),
                timeout,
                () -> {
                    RedisServer now = currentMaster();
                    if (now == previous || !now.isRunning() || !isMaster(now)) {
                        return false;
                    }
                    promoted[0] = now;
                    return true;
                },
                () -> "; the Sentinel names "
                        + Resp.call(sentinel.port(), "SENTINEL", "get-master-addr-by-name", MASTER_NAME)
                        + Posix.tail(sentinel.logFile(), 0));
        master = promoted[0];
        log.info("Sentinel failed over from port {} to port {}", previous.port(), promoted[0].port());
        return promoted[0];
    }

    private static boolean isMaster(RedisServer node) {
        try {
            Object role = Resp.call(node.port(), "ROLE");
            return role instanceof List<?> fields && !fields.isEmpty() && "master".equals(fields.get(0));
        } catch (IllegalStateException e) {
            return false; // not answering (yet)
        }
    }

    /** {@return a URI that finds the master through the Sentinel, e.g. {@code redis-sentinel://127.0.0.1:26379#baton-master}} */
    public String uri() {
        return "redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#" + MASTER_NAME;
    }

    /**
     * {@return {@link #uri()} with a query before the master's name, e.g. {@code
     * redis-sentinel://127.0.0.1:26379?prefix=app:#baton-master} for {@code query} {@code prefix=app:}}
     *
     * @param query URI parameters without the {@code ?}, such as {@code waitReplicas=1}; not encoded
     */
    public String uri(String query) {
        return "redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "?" + query + "#" + MASTER_NAME;
    }

    private static void awaitUntil(String what, BooleanSupplier condition, Supplier<String> details) {
        Await.until(what, READY_TIMEOUT, condition, details);
    }

    @Override
    public void close() {
        sentinel.close();
        nodes.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisSentinelServers[" + uri() + ", master port " + master.port() + ", " + nodes.size() + " nodes]";
    }
}
