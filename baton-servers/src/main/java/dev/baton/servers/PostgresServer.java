package dev.baton.servers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server in a child process, on a free port on {@code 127.0.0.1}, with a fresh
 * data directory and a database named {@code baton}.
 *
 * <p>{@link #start()} takes the PostgreSQL binaries from the {@code io.zonky.test.postgres}
 * binaries jar on the classpath (extracted once into a cache under {@code java.io.tmpdir}), copies
 * into a new temporary directory the empty cluster that {@code initdb} made once for those binaries
 * (kept in the same cache) and starts {@code postgres} with durability turned off (fsync, synchronous
 * commit and full page writes off: fast, but the data does not survive a crash of the machine).
 * Connections need password authentication as user {@code postgres}. When the JVM runs as root,
 * {@code initdb}, the copy and {@code postgres} run as uid/gid 65534 ({@code nobody}) through
 * {@code setpriv}, because PostgreSQL refuses to run as root. The server's output goes to
 * {@code postgres.log} in the temporary directory.
 *
 * <p>If the environment variable {@code BATON_POSTGRES_URL} is set, nothing is started: the server
 * reports that URL with {@code BATON_POSTGRES_USER} and {@code BATON_POSTGRES_PASSWORD} (defaults
 * {@code postgres} / {@code postgres}), {@link #external()} is {@code true}, {@link #pid()} is
 * {@code -1} and {@link #close()} does nothing.
 *
 * <p>Failure behaviour: {@link #start()} throws {@link IllegalStateException} when the binaries
 * cannot be found or extracted, {@code initdb} or the copy of its cluster fails, or the server is
 * not ready within 60 seconds (the message includes the tail of the server log); it retries a few
 * times on a port clash and removes everything it created before throwing. {@link #close()} asks
 * the server for a fast shutdown (SIGINT), kills it (and its children) if it has not exited after
 * 10 seconds, and deletes the temporary directory. A JVM shutdown hook stops the server (SIGQUIT, then SIGKILL) if {@code
 * close()} was never called; nothing can stop it if the JVM itself is killed with SIGKILL.
 *
 * <p>Faults: fault tests may send signals to {@link #pid()} (SIGSTOP/SIGCONT), {@link #kill()} the
 * server (a crash) or {@link #restart()} it. A restarted server listens on the same port and serves
 * the same data directory, so tables and rows committed before a {@code restart()} are still there;
 * connections opened before it are broken. Both refuse an external server with {@link
 * IllegalStateException}. Thread-safe.
 */
public final class PostgresServer extends ManagedServer implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);

    static final String ENV_URL = "BATON_POSTGRES_URL";
    static final String ENV_USER = "BATON_POSTGRES_USER";
    static final String ENV_PASSWORD = "BATON_POSTGRES_PASSWORD";

    static final String DATABASE = "baton";
    static final String USER = "postgres";
    static final String PASSWORD = "baton";
    private static final int DEFAULT_PORT = 5432;
    private static final int START_ATTEMPTS = 5;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration RESTART_PORT_WAIT = Duration.ofSeconds(30);

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    private final Path baseDir; // null when external

    private PostgresServer(String jdbcUrl, String user, String password, String host, int port) {
        super(ManagedProcess.external("the external PostgreSQL named by " + ENV_URL + " (" + jdbcUrl
                + "); only a server started by PostgresServer.start() supports faults"));
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.host = host;
        this.port = port;
        this.baseDir = null;
    }

    private PostgresServer(int port, ManagedProcess process, Path baseDir) {
        super(process);
        this.jdbcUrl = url(port, DATABASE);
        this.user = USER;
        this.password = PASSWORD;
        this.host = FreePort.LOOPBACK;
        this.port = port;
        this.baseDir = baseDir;
    }

    /**
     * Starts a new PostgreSQL server, or reports the external server named by {@code
     * BATON_POSTGRES_URL}. Blocks until the server accepts connections and the database {@code
     * baton} exists (typically half a second; the first start on a machine also extracts the
     * binaries, about one more second).
     *
     * @return the running server, which the caller must {@link #close()}
     * @throws IllegalStateException if the server cannot be started; see the class description
     */
    public static PostgresServer start() {
        return start(System.getenv());
    }

    /**
     * A database of its own on a PostgreSQL server that every caller in this JVM shares: the first
     * call starts the server ({@link #start()}), each call creates a new database on it, and the
     * server stops when the JVM exits. For test classes that leave the server itself alone (no
     * signals, {@link #kill()} or {@link #restart()}) and keep their state in their database:
     * PostgreSQL scopes tables, advisory locks and LISTEN channels to a database, so such classes
     * see nothing of each other, and a test JVM pays one server start instead of one per class. With {@code BATON_POSTGRES_URL} set, every call gives that external server's
     * database.
     *
     * @return the database; its {@link DatabaseServer#close()} does nothing
     * @throws IllegalStateException if the server cannot be started or the database created
     */
    public static DatabaseServer sharedDatabase() {
        return SharedDatabases.POSTGRES.database();
    }

    static PostgresServer start(Map<String, String> env) {
        return start(env, FreePort::find);
    }

    /** {@code ports} supplies the port for each start attempt; for tests. */
    static PostgresServer start(Map<String, String> env, IntSupplier ports) {
        String url = env.get(ENV_URL);
        if (url != null && !url.isBlank()) {
            JdbcUrls.HostPort hostPort;
            try {
                hostPort = JdbcUrls.parse(url, DEFAULT_PORT, new JdbcUrls.HostPort("localhost", DEFAULT_PORT));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(ENV_URL + " is not a valid JDBC URL: " + e.getMessage(), e);
            }
            PostgresServer server = new PostgresServer(
                    url,
                    env.getOrDefault(ENV_USER, "postgres"),
                    env.getOrDefault(ENV_PASSWORD, "postgres"),
                    hostPort.host(),
                    hostPort.port());
            log.info("using external PostgreSQL at {} ({} is set)", url, ENV_URL);
            return server;
        }
        return launch(ports);
    }

    @Override
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public String user() {
        return user;
    }

    @Override
    public String password() {
        return password;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    /**
     * Kills the postmaster and all its processes with SIGKILL, as a crash of the server does, and
     * returns once they are gone. Nothing is deleted: {@link #restart()} starts the server again on
     * the same data directory, which then runs crash recovery. Because the server runs with {@code
     * synchronous_commit=off}, transactions committed in the last few hundred milliseconds before
     * the kill may be missing after that recovery (the data of a clean {@link #restart()} is
     * complete). Does nothing if the server is not running.
     *
     * @throws IllegalStateException for an external server, or if a process of the server is still
     *     alive 10 s after SIGKILL
     */
    public void kill() {
        process.kill();
    }

    /**
     * Stops the server with a fast shutdown (SIGINT; SIGKILL after 10 s) if it is running, and
     * starts it again on the same port with the same data directory; returns once it accepts
     * connections to the database {@code baton} again. Committed data survives (after a {@link
     * #kill()} see the caveat there); open connections are broken. Starting is retried while the
     * port is taken by someone else, for up to 30 s.
     *
     * @throws IllegalStateException for an external server, after {@link #close()}, or if the
     *     server cannot be started again within 30 s (the message includes the tail of the server
     *     log); the server is then not running, and {@code close()} still cleans up
     */
    public void restart() {
        process.restart(true, RESTART_PORT_WAIT);
    }

    /** The data directory, or {@code null} for an external server; for tests. */
    Path dataDir() {
        return baseDir == null ? null : baseDir.resolve("data");
    }

    /** The temporary directory holding data, socket and logs, or {@code null} for an external server. */
    Path baseDir() {
        return baseDir;
    }

    @Override
    public String toString() {
        return "PostgresServer[" + jdbcUrl + (external() ? ", external" : ", pid " + pid()) + "]";
    }

    static String url(int port, String database) {
        return "jdbc:postgresql://" + FreePort.LOOPBACK + ":" + port + "/" + database;
    }

    // ---------------------------------------------------------------------------------------------
    // launching

    private static PostgresServer launch(IntSupplier ports) {
        long started = System.nanoTime();
        Path bin = PostgresBinaries.installDir().resolve("bin");
        long binariesReady = System.nanoTime();
        Path base = Posix.createTempDirectory("baton-postgres-");
        ManagedProcess process = ManagedProcess.builder("PostgreSQL", base.resolve("postgres.log"))
                .portTakenWhen("Address already in use", "could not create any TCP/IP sockets")
                .readyTimeout(READY_TIMEOUT)
                .stop("INT", Duration.ofSeconds(10)) // fast shutdown
                .jvmExitStop("QUIT", Duration.ofSeconds(5)) // immediate shutdown
                .deleteOnClose(base)
                .build();
        return process.closeOnFailure(() -> {
            Postmaster postmaster = new Postmaster(bin, base);
            postmaster.initdb();
            long initialised = System.nanoTime();
            int port = process.startOnFreePort(ports, START_ATTEMPTS, postmaster::command, postmaster::ready);
            Postmaster.createDatabase(port, DATABASE);
            long ready = System.nanoTime();
            PostgresServer server = new PostgresServer(port, process, base);
            log.info(
                    "started PostgreSQL (pid {}) at {} in {} ms (binaries {} ms, cluster copied in {} ms, startup {} ms); data in {}",
                    process.pid(),
                    server.jdbcUrl,
                    TimeUnit.NANOSECONDS.toMillis(ready - started),
                    TimeUnit.NANOSECONDS.toMillis(binariesReady - started),
                    TimeUnit.NANOSECONDS.toMillis(initialised - binariesReady),
                    TimeUnit.NANOSECONDS.toMillis(ready - initialised),
                    base);
            return server;
        });
    }
}
