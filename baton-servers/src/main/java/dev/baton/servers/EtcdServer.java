package dev.baton.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real etcd servers from Debian's {@code etcd-server} package ({@code /usr/bin/etcd}, 3.4 in Debian
 * 12): one member ({@link #start()}) or a cluster of several ({@link #startCluster(int)}), each
 * member a child process on free loopback client and peer ports with its own temporary data
 * directory.
 *
 * <p>If the environment variable {@code BATON_ETCD_ENDPOINTS} is set ({@code host:2379,...}),
 * nothing is started: {@link #endpoints()} reports it, {@link #external()} is true, {@link #close()}
 * does nothing and the fault methods ({@link #kill(int)}, {@link #restart(int)}) throw.
 *
 * <p>Guarantees: once a start method returns, every member answers {@code /health} with a leader
 * elected. {@link #kill(int)} kills one member with SIGKILL (a crash); {@link #restart(int)} starts it
 * again on the same ports and data, and returns once it is healthy in the cluster again.
 *
 * <p>Failure behaviour: the start methods throw {@link IllegalStateException} when the binary is
 * missing (the message gives the {@code apt-get} command), when a member exits while starting (with
 * the tail of its log) or when the cluster is not healthy within 30 s; they retry on a port clash and
 * remove what they created before throwing. {@link #close()} stops every member with SIGTERM (SIGKILL
 * after 10 s) and deletes the data directories; if {@code close()} was never called, each member's
 * JVM shutdown hook stops it and deletes its data and log (the then empty base directory stays).
 * Each member is a {@link ManagedProcess}. Thread-safe.
 */
public final class EtcdServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EtcdServer.class);

    /** Environment variable naming external endpoints, e.g. {@code 10.0.0.5:2379,10.0.0.6:2379}. */
    public static final String ENV_ENDPOINTS = "BATON_ETCD_ENDPOINTS";
    /** The Debian command that installs the server. */
    public static final String INSTALL_COMMAND = "apt-get install -y --no-install-recommends etcd-server";

    private static final List<Path> BINARIES = List.of(Path.of("/usr/bin/etcd"), Path.of("/usr/local/bin/etcd"));
    private static final int START_ATTEMPTS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final String endpoints;
    private final Path baseDir; // null when external
    private final EtcdTls tls; // null for plain connections
    private final List<EtcdMember> members;

    private EtcdServer(String endpoints) {
        this.endpoints = endpoints;
        this.baseDir = null;
        this.tls = null;
        this.members = List.of();
    }

    private EtcdServer(Path baseDir, List<EtcdMember> members, EtcdTls tls) {
        this.baseDir = baseDir;
        this.tls = tls;
        this.members = List.copyOf(members);
        this.endpoints = String.join(
                ",",
                members.stream()
                        .map(m -> FreePort.LOOPBACK + ":" + m.clientPort)
                        .toList());
    }

    /**
     * Starts one member, or reports the external endpoints named by {@code BATON_ETCD_ENDPOINTS}.
     *
     * @return a running server; the caller closes it, and a JVM shutdown hook stops it otherwise
     * @throws IllegalStateException if etcd is not installed (the message gives the install command)
     *     or does not become healthy
     */
    public static EtcdServer start() {
        return startCluster(1);
    }

    /**
     * Starts a cluster of {@code size} members (a quorum is {@code size / 2 + 1}), or reports the
     * external endpoints named by {@code BATON_ETCD_ENDPOINTS}.
     *
     * @param size the number of members, at least 1
     * @return a running cluster whose members answer; the caller closes it
     * @throws IllegalArgumentException if {@code size} is less than 1
     * @throws IllegalStateException if etcd is not installed or the cluster does not become healthy
     */
    public static EtcdServer startCluster(int size) {
        return startCluster(size, System.getenv());
    }

    /**
     * Starts one member that speaks only TLS to its clients and asks them for a certificate signed by
     * {@code tls}'s authority; {@link #uri()} then gives an {@code etcds://} URI with the client's
     * certificate. Never external: {@code BATON_ETCD_ENDPOINTS} is ignored.
     *
     * @param tls the authority and certificates, from {@link EtcdTls#create(java.nio.file.Path)}
     * @return a running TLS-only server; the caller closes it
     * @throws IllegalStateException if etcd is not installed or does not become healthy
     */
    public static EtcdServer startTls(EtcdTls tls) {
        return startCluster(1, Map.of(), tls);
    }

    static EtcdServer startCluster(int size, Map<String, String> env) {
        return startCluster(size, env, null);
    }

    private static EtcdServer startCluster(int size, Map<String, String> env, EtcdTls tls) {
        if (size < 1) {
            throw new IllegalArgumentException("an etcd cluster needs at least one member, not " + size);
        }
        String external = env.get(ENV_ENDPOINTS);
        if (external != null && !external.isBlank()) {
            String trimmed = external.trim().replace("http://", "").replace("https://", "");
            log.info("using external etcd at {} ({} is set)", trimmed, ENV_ENDPOINTS);
            return new EtcdServer(trimmed);
        }
        Path binary = binary();
        Path base = Posix.createTempDirectory(dataRoot(), "baton-etcd-");
        try {
            for (int attempt = 1; ; attempt++) {
                List<EtcdMember> members = EtcdMember.plan(binary, base, size, tls);
                try {
                    members.forEach(EtcdMember::spawn);
                    if (ManagedProcess.awaitReady(
                            members.stream().map(EtcdMember::process).toList(), READY_TIMEOUT)) {
                        EtcdServer server = new EtcdServer(base, members, tls);
                        log.info(
                                "started etcd {} ({} member(s), pids {}) at {}; data in {}",
                                version(),
                                size,
                                members.stream().map(EtcdMember::pid).toList(),
                                server.endpoints,
                                base);
                        return server;
                    }
                } catch (RuntimeException e) {
                    members.forEach(EtcdMember::close);
                    throw e;
                }
                String logs = members.stream().map(EtcdMember::logTail).collect(Collectors.joining());
                members.forEach(EtcdMember::close); // a port was taken: plan new ones
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException(
                            "etcd could not bind free ports in " + START_ATTEMPTS + " attempts" + logs);
                }
            }
        } catch (RuntimeException e) {
            Posix.deleteRecursively(base);
            throw e;
        }
    }

    /**
     * Whether the etcd binary of Debian's {@code etcd-server} package is installed here.
     *
     * @return {@code true} if an executable etcd binary exists
     */
    public static boolean installed() {
        return BINARIES.stream().anyMatch(Files::isExecutable);
    }

    private static Path binary() {
        return BINARIES.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("etcd is not installed: no " + BINARIES.get(0)
                        + ". Install Debian's etcd-server package (as root: "
                        + INSTALL_COMMAND + "; ./test does it), or set " + ENV_ENDPOINTS
                        + "=host:2379 to use an external etcd"));
    }

    /**
     * The version the installed binary reports ({@code etcd --version}), e.g. {@code 3.4.23};
     * {@code unknown} if it cannot be read.
     *
     * @return the version number, or {@code unknown}
     */
    public static String version() {
        try {
            Process process = new ProcessBuilder(binary().toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            process.waitFor(10, TimeUnit.SECONDS);
            for (String line : out.split("\n")) {
                if (line.startsWith("etcd Version:")) {
                    return line.substring("etcd Version:".length()).trim();
                }
            }
            return "unknown";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * Data directories go to {@code /dev/shm} where it exists: the tests need no durability across a
     * machine crash (a member's data survives its process being killed), and etcd's fsync on every
     * write would otherwise make the disk, not the lock protocol, what the tests and benchmarks wait on.
     */
    private static Path dataRoot() {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm;
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * The client address of every member.
     *
     * @return {@code host:port,host:port,...}
     */
    public String endpoints() {
        return endpoints;
    }

    /**
     * A URI of every member, for {@code Baton.connect}: {@code etcd://host:port,...}, or for a TLS
     * server {@code etcds://host:port?ca=...&cert=...&key=...} with the client certificate.
     *
     * @return a URI that {@code Baton.connect} accepts
     */
    public String uri() {
        if (tls == null) {
            return "etcd://" + endpoints;
        }
        return "etcds://" + endpoints + "?ca=" + tls.ca() + "&cert=" + tls.clientCert() + "&key=" + tls.clientKey();
    }

    /**
     * The client address of one member.
     *
     * @param index the member, 0-based
     * @return its client host and port
     */
    public InetSocketAddress address(int index) {
        String endpoint = endpoints.split(",")[index].trim();
        int colon = endpoint.lastIndexOf(':');
        return new InetSocketAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)));
    }

    /**
     * The number of members.
     *
     * @return how many members were started, or how many endpoints an external server has
     */
    public int size() {
        return external() ? endpoints.split(",").length : members.size();
    }

    /**
     * Whether this reports endpoints started elsewhere.
     *
     * @return {@code true} for an external server, which cannot be killed or restarted
     */
    public boolean external() {
        return baseDir == null;
    }

    /**
     * The process id of one member.
     *
     * @param index the member, 0-based
     * @return its pid, or -1 if it is not running or the server is external
     */
    public long pid(int index) {
        return external() ? -1 : members.get(index).pid();
    }

    /**
     * The index of the member that is the Raft leader now, as its metrics say ({@code
     * etcd_server_is_leader}); -1 if no running member says so.
     *
     * @return the leader's index, 0-based, or -1
     * @throws IllegalStateException for an external server
     */
    public int leader() {
        requireEmbedded("find the leader of");
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).isLeader()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether member {@code index} knows a leader now, as its metrics say ({@code
     * etcd_server_has_leader}); false if it does not answer.
     *
     * @param index the member, 0-based
     * @return {@code true} if the member answers and reports a leader
     * @throws IllegalStateException for an external server
     */
    public boolean hasLeader(int index) {
        requireEmbedded("ask a member of");
        return members.get(index).hasLeader();
    }

    /**
     * Kills member {@code index} with SIGKILL (a crash); its data stays for {@link #restart(int)}.
     *
     * @param index the member, 0-based
     * @throws IllegalStateException for an external server
     */
    public void kill(int index) {
        requireEmbedded("kill");
        members.get(index).kill();
    }

    /**
     * Starts member {@code index} again on its ports and data (after {@link #kill(int)}), and returns
     * once it is healthy again (it has rejoined and sees a leader).
     *
     * @param index the member, 0-based, killed before
     * @throws IllegalStateException if it does not come back within 30 s
     *
     */
    public void restart(int index) {
        requireEmbedded("restart");
        members.get(index).restart();
    }

    private void requireEmbedded(String what) {
        if (external()) {
            throw new IllegalStateException("cannot " + what + " the external etcd named by " + ENV_ENDPOINTS);
        }
    }

    /**
     * Stops every member (SIGTERM, SIGKILL after 10 s) and deletes the data directories; each member
     * once. Does nothing for an external server.
     */
    @Override
    public void close() {
        if (!external()) {
            members.forEach(EtcdMember::close);
            Posix.deleteRecursively(baseDir);
        }
    }

    @Override
    public String toString() {
        return "EtcdServer[" + endpoints + (external() ? ", external" : ", " + members.size() + " member(s)") + "]";
    }
}
