package dev.baton.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ZooKeeper in this JVM (curator-test): one standalone server ({@link #start()}) or an ensemble of
 * several servers ({@link #startEnsemble(int)}), each on free loopback ports with a temporary data
 * directory that is deleted on {@link #close()}.
 *
 * <p>The servers run with a short tick ({@link #TICK_MILLIS} ms) and accept session timeouts from
 * {@link #MIN_SESSION_MILLIS} to {@link #MAX_SESSION_MILLIS} ms (or a lower maximum given to {@link
 * #start(Duration)}), so that tests can use sessions of a few seconds (ZooKeeper otherwise clamps
 * session timeouts to 2 to 20 ticks of 3 s).
 *
 * <p>If the environment variable {@code BATON_ZOOKEEPER_CONNECT} is set ({@code host:port,...}),
 * nothing is started: {@link #connectString()} reports it, {@link #external()} is true, {@link
 * #close()} does nothing and the fault methods ({@link #kill(int)}, {@link #restart(int)}) throw.
 *
 * <p>Failure behaviour: {@link #start()} and {@link #startEnsemble(int)} throw {@link
 * IllegalStateException} if a server cannot start (after releasing what they started); {@link
 * #close()} logs problems instead of throwing.
 */
public final class ZooKeeperServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperServer.class);

    static final String ENV_CONNECT = "BATON_ZOOKEEPER_CONNECT";
    /** Server tick; session timeouts are multiples of it. */
    public static final int TICK_MILLIS = 250;

    /** The shortest session timeout the servers grant, in milliseconds; shorter requests are raised to it. */
    public static final int MIN_SESSION_MILLIS = 500;
    /** The longest session timeout the servers grant, in milliseconds; longer requests are lowered to it. */
    public static final int MAX_SESSION_MILLIS = 60_000;

    /**
     * How long {@link #kill(int)} waits for the killed peer's main thread to end, and {@link
     * #restart(int)} for the restarted peer to serve.
     */
    static final long FAULT_WAIT_MILLIS = 30_000;

    private final String connectString;
    private final TestingServer single; // null for an ensemble or external
    private final TestingCluster cluster; // null for a single server or external
    private final List<InstanceSpec> specs;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ZooKeeperServer(
            String connectString, TestingServer single, TestingCluster cluster, List<InstanceSpec> specs) {
        this.connectString = connectString;
        this.single = single;
        this.cluster = cluster;
        this.specs = specs;
    }

    /**
     * Starts one standalone server in this JVM, or reports the external one named by {@code
     * BATON_ZOOKEEPER_CONNECT}.
     *
     * @return a running server; the caller closes it
     * @throws IllegalStateException if the server cannot be started
     */
    public static ZooKeeperServer start() {
        return start(Duration.ofMillis(MAX_SESSION_MILLIS));
    }

    /**
     * Starts one standalone server that grants sessions of at most {@code maxSessionTimeout}: a
     * client that asks for more gets this, as it gets at most 20 ticks from a server with ZooKeeper's
     * defaults. For tests of a session timeout the server lowered below the one the client asked for.
     * With {@code BATON_ZOOKEEPER_CONNECT} set, reports the external server, whose limits are its own.
     *
     * @param maxSessionTimeout the longest session timeout the server grants; from {@link
     *     #MIN_SESSION_MILLIS} ms to {@link #MAX_SESSION_MILLIS} ms
     * @return a running server; the caller closes it
     * @throws IllegalArgumentException if {@code maxSessionTimeout} is outside that range
     * @throws IllegalStateException if the server cannot be started
     */
    public static ZooKeeperServer start(Duration maxSessionTimeout) {
        int maxSessionMillis = ZooKeeperInstances.maxSessionMillis(maxSessionTimeout);
        String external = System.getenv(ENV_CONNECT);
        if (external != null && !external.isBlank()) {
            return new ZooKeeperServer(external.trim(), null, null, List.of());
        }
        InstanceSpec spec = ZooKeeperInstances.spec(1, new HashSet<>(), maxSessionMillis);
        try {
            TestingServer server = ZooKeeperInstances.inServerThreads(() -> new TestingServer(spec, true));
            log.info("ZooKeeper started at {} (data {})", server.getConnectString(), spec.getDataDirectory());
            return new ZooKeeperServer(server.getConnectString(), server, null, List.of(spec));
        } catch (Exception e) {
            throw new IllegalStateException(
                    "could not start an in-process ZooKeeper server on port " + spec.getPort()
                            + "; check that the temporary directory is writable: " + e,
                    e);
        }
    }

    /**
     * Starts an ensemble of {@code size} servers in this JVM (a quorum is {@code size / 2 + 1}).
     *
     * @param size the number of servers, at least 1
     * @return the started ensemble, or the external server named by {@code BATON_ZOOKEEPER_CONNECT}; the
     *     caller closes it
     * @throws IllegalArgumentException if {@code size} is less than 1
     * @throws IllegalStateException if the ensemble cannot be started
     */
    public static ZooKeeperServer startEnsemble(int size) {
        return startEnsemble(size, Duration.ofMillis(MAX_SESSION_MILLIS));
    }

    /**
     * Starts an ensemble of {@code size} servers, each granting sessions of at most {@code
     * maxSessionTimeout} (see {@link #start(Duration)}).
     *
     * @param size the number of servers, at least 1
     * @param maxSessionTimeout the longest session timeout the servers grant; from {@link
     *     #MIN_SESSION_MILLIS} ms to {@link #MAX_SESSION_MILLIS} ms
     * @return the started ensemble, or the external server named by {@code BATON_ZOOKEEPER_CONNECT}; the
     *     caller closes it
     * @throws IllegalArgumentException if {@code size} is less than 1 or {@code maxSessionTimeout} is
     *     outside that range
     * @throws IllegalStateException if the ensemble cannot be started
     */
    public static ZooKeeperServer startEnsemble(int size, Duration maxSessionTimeout) {
        int maxSessionMillis = ZooKeeperInstances.maxSessionMillis(maxSessionTimeout);
        if (size < 1) {
            throw new IllegalArgumentException("an ensemble needs at least one server, not " + size);
        }
        String external = System.getenv(ENV_CONNECT);
        if (external != null && !external.isBlank()) {
            return new ZooKeeperServer(external.trim(), null, null, List.of());
        }
        List<InstanceSpec> specs = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        for (int i = 1; i <= size; i++) {
            specs.add(ZooKeeperInstances.spec(i, ports, maxSessionMillis));
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            ZooKeeperInstances.inServerThreads(() -> {
                cluster.start();
                return null;
            });
        } catch (Exception e) {
            try {
                cluster.close();
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw new IllegalStateException(
                    "could not start a " + size + "-server ZooKeeper ensemble; check free ports and the temporary"
                            + " directory: " + e,
                    e);
        }
        log.info("ZooKeeper ensemble of {} started at {}", size, cluster.getConnectString());
        return new ZooKeeperServer(cluster.getConnectString(), null, cluster, List.copyOf(specs));
    }

    /**
     * Whether {@code thread} is one of the threads of the servers this class started in this JVM
     * (false for every thread when the server is external): tests that check a client leaves no
     * thread behind skip these.
     *
     * @param thread a live thread of this JVM
     * @return {@code true} if it belongs to a server this class started
     */
    public boolean isServerThread(Thread thread) {
        return !external() && ZooKeeperInstances.isServerThread(thread);
    }

    /**
     * The connect string of every server.
     *
     * @return {@code host:port,host:port,...}
     */
    public String connectString() {
        return connectString;
    }

    /**
     * The client address of one server.
     *
     * @param index the server, 0-based
     * @return its host and client port
     */
    public InetSocketAddress address(int index) {
        if (specs.isEmpty()) {
            String[] hostPort = connectString.split(",")[index].trim().split(":");
            return new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        }
        InstanceSpec spec = specs.get(index);
        return new InetSocketAddress(spec.getHostname(), spec.getPort());
    }

    /**
     * The number of servers.
     *
     * @return how many servers were started, or how many the external connect string names
     */
    public int size() {
        return specs.isEmpty() ? connectString.split(",").length : specs.size();
    }

    /**
     * Whether this reports a server that was started elsewhere.
     *
     * @return {@code true} for an external server, which cannot be killed or restarted
     */
    public boolean external() {
        return single == null && cluster == null;
    }

    /**
     * Stops server {@code index} of an ensemble abruptly (its data directory is kept) and returns
     * once its main thread has ended, so that a {@link #restart(int)} never runs beside the dying
     * peer.
     *
     * @param index the server of the ensemble, 0-based
     * @throws IllegalStateException if the server was not running, or its main thread is still
     *     running {@link #FAULT_WAIT_MILLIS} ms after the kill
     */
    public void kill(int index) {
        requireCluster("kill");
        InstanceSpec spec = specs.get(index);
        List<Thread> peers = peerThreads(spec.getServerId());
        try {
            if (!cluster.killServer(spec)) {
                throw new IllegalStateException("ZooKeeper server " + index + " was not running");
            }
            for (Thread peer : peers) {
                peer.join(FAULT_WAIT_MILLIS);
                if (peer.isAlive()) {
                    throw new IllegalStateException(
                            "thread " + peer.getName() + " still runs " + FAULT_WAIT_MILLIS + " ms after the kill");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing ZooKeeper server " + index, e);
        } catch (Exception e) {
            throw new IllegalStateException("could not kill ZooKeeper server " + index + ": " + e, e);
        }
    }

    /** The main thread of the peer with id {@code serverId} (ZooKeeper names it QuorumPeer[myid=N]...). */
    private static List<Thread> peerThreads(int serverId) {
        String prefix = "QuorumPeer[myid=" + serverId + "]";
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(prefix))
                .filter(ZooKeeperInstances::isServerThread)
                .toList();
    }

    /**
     * Restarts server {@code index} of an ensemble after {@link #kill(int)} and returns once it
     * serves clients again (it has joined the quorum as leader or follower).
     *
     * @param index the server of the ensemble, 0-based, killed before
     * @throws IllegalStateException if it cannot start, or does not serve within {@link
     *     #FAULT_WAIT_MILLIS} ms
     */
    public void restart(int index) {
        requireCluster("restart");
        try {
            ZooKeeperInstances.inServerThreads(() -> cluster.restartServer(specs.get(index)));
            awaitServing(index);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting ZooKeeper server " + index, e);
        } catch (Exception e) {
            throw new IllegalStateException("could not restart ZooKeeper server " + index + ": " + e, e);
        }
    }

    /**
     * Polls server {@code index} with ZooKeeper's "srvr" command until it reports a mode (a peer
     * that has not joined the quorum answers that it is not serving requests).
     */
    private void awaitServing(int index) throws InterruptedException {
        long deadline = System.nanoTime() + FAULT_WAIT_MILLIS * 1_000_000;
        String last = "no answer";
        while (System.nanoTime() - deadline < 0) {
            try {
                last = srvr(address(index));
                if (last.contains("Mode: ")) {
                    return;
                }
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("ZooKeeper server " + index + " does not serve " + FAULT_WAIT_MILLIS
                + " ms after its restart: " + last);
    }

    /** ZooKeeper's four-letter "srvr" command: the server answers with its mode and version. */
    static String srvr(InetSocketAddress address) throws IOException {
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    private void requireCluster(String what) {
        if (cluster == null) {
            throw new IllegalStateException("cannot " + what + " a server of " + connectString
                    + ": only an ensemble started with startEnsemble supports faults");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (single != null) {
                single.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        } catch (IOException | RuntimeException e) {
            log.warn("stopping ZooKeeper at {} failed: {}", connectString, e.toString());
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperServer[" + connectString + "]";
    }
}
