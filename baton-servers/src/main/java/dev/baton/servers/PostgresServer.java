package dev.baton.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server in a child process, on a free port on {@code 127.0.0.1}, with a fresh
 * data directory and a database named {@code baton}.
 *
 * <p>{@link #start()} takes the PostgreSQL binaries from the {@code io.zonky.test.postgres}
 * binaries jar on the classpath (extracted once into a cache under {@code java.io.tmpdir}), runs
 * {@code initdb} into a new temporary directory and starts {@code postgres} with durability turned
 * off (fsync, synchronous commit and full page writes off: fast, but the data does not survive a
 * crash of the machine). Connections need password authentication as user {@code postgres}. When
 * the JVM runs as root, {@code initdb} and {@code postgres} run as uid/gid 65534 ({@code nobody})
 * through {@code setpriv}, because PostgreSQL refuses to run as root. The server's output goes to
 * {@code postgres.log} in the temporary directory.
 *
 * <p>If the environment variable {@code BATON_POSTGRES_URL} is set, nothing is started: the server
 * reports that URL with {@code BATON_POSTGRES_USER} and {@code BATON_POSTGRES_PASSWORD} (defaults
 * {@code postgres} / {@code postgres}), {@link #external()} is {@code true}, {@link #pid()} is
 * {@code -1} and {@link #close()} does nothing.
 *
 * <p>Failure behaviour: {@link #start()} throws {@link IllegalStateException} when the binaries
 * cannot be found or extracted, {@code initdb} fails, or the server is not ready within 60 seconds
 * (the message includes the tail of the server log); it retries a few times on a port clash and
 * removes everything it created before throwing. {@link #close()} asks the server for a fast
 * shutdown (SIGINT), kills it (and its children) if it has not exited after 10 seconds, and deletes
 * the temporary directory. A JVM shutdown hook stops the server (SIGQUIT, then SIGKILL) if {@code
 * close()} was never called; nothing can stop it if the JVM itself is killed with SIGKILL.
 *
 * <p>Faults: fault tests may send signals to {@link #pid()} (SIGSTOP/SIGCONT), {@link #kill()} the
 * server (a crash) or {@link #restart()} it. A restarted server listens on the same port and serves
 * the same data directory, so tables and rows committed before a {@code restart()} are still there;
 * connections opened before it are broken. Both refuse an external server with {@link
 * IllegalStateException}. Thread-safe.
 */
public final class PostgresServer implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(PostgresServer.class);

    static final String ENV_URL = "BATON_POSTGRES_URL";
    static final String ENV_USER = "BATON_POSTGRES_USER";
    static final String ENV_PASSWORD = "BATON_POSTGRES_PASSWORD";

    static final String DATABASE = "baton";
    static final String USER = "postgres";
    static final String PASSWORD = "baton";
    private static final int DEFAULT_PORT = 5432;
    private static final int START_ATTEMPTS = 5;
    private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long STOP_TIMEOUT_SECONDS = 10;
    private static final long RESTART_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    private final Postmaster postmaster; // null when external
    private final Path baseDir; // null when external
    private final ReentrantLock processLock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;
    private volatile Process process; // null when external

    private PostgresServer(String jdbcUrl, String user, String password, String host, int port) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.host = host;
        this.port = port;
        this.process = null;
        this.postmaster = null;
        this.baseDir = null;
        this.shutdownHook = null;
    }

    private PostgresServer(int port, Process process, Postmaster postmaster, Path baseDir) {
        this.jdbcUrl = url(port, DATABASE);
        this.user = USER;
        this.password = PASSWORD;
        this.host = FreePort.LOOPBACK;
        this.port = port;
        this.process = process;
        this.postmaster = postmaster;
        this.baseDir = baseDir;
        this.shutdownHook = new Thread(this::stopOnJvmExit, "baton-postgres-shutdown-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
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

    @Override
    public boolean external() {
        return postmaster == null;
    }

    /**
     * {@return the pid of the current postmaster process, or {@code -1} for an external server} This
     * is the process to send SIGSTOP/SIGCONT to in fault tests. It changes with {@link #restart()}
     * and is still returned after {@link #kill()} and {@link #close()}.
     */
    public long pid() {
        Process current = process;
        return current == null ? -1 : current.pid();
    }

    /** {@return whether the embedded postmaster is running (not killed, stopped for a restart or closed)} */
    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
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
        requireEmbedded("kill");
        processLock.lock();
        try {
            Process current = process;
            if (current == null || !current.isAlive()) {
                return;
            }
            if (!Postmaster.kill(current, STOP_TIMEOUT_SECONDS)) {
                throw new IllegalStateException("a process of PostgreSQL (pid " + current.pid() + ") on port " + port
                        + " is still alive " + STOP_TIMEOUT_SECONDS + " s after SIGKILL");
            }
            log.info("killed PostgreSQL (pid {}) on port {}", current.pid(), port);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing PostgreSQL on port " + port, e);
        } finally {
            processLock.unlock();
        }
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
        requireEmbedded("restart");
        processLock.lock();
        try {
            if (closed.get()) {
                throw new IllegalStateException("PostgreSQL on port " + port + " was closed; it cannot be restarted");
            }
            Postmaster.stop(process, "INT", STOP_TIMEOUT_SECONDS);
            long deadline = System.nanoTime() + RESTART_TIMEOUT_NANOS;
            while (true) {
                long logOffset = postmaster.logOffset();
                Process next = postmaster.spawn(port);
                process = next; // from here on, close() and the shutdown hook stop this one
                if (postmaster.awaitReady(next, port, logOffset, Math.max(0, deadline - System.nanoTime()))) {
                    log.info("restarted PostgreSQL (pid {}) at {}", next.pid(), jdbcUrl);
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("PostgreSQL could not bind port " + port + " again within "
                            + TimeUnit.NANOSECONDS.toSeconds(RESTART_TIMEOUT_NANOS) + " s"
                            + Posix.tail(postmaster.serverLog(), logOffset));
                }
                log.debug("port {} is taken; starting PostgreSQL again shortly", port);
                Thread.sleep(100); // backoff before the next attempt, not synchronisation
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not restart PostgreSQL on port " + port + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Postmaster.stop(process, "QUIT", 5);
            throw new IllegalStateException("interrupted while restarting PostgreSQL on port " + port, e);
        } finally {
            processLock.unlock();
        }
    }

    private void requireEmbedded(String what) {
        if (external()) {
            throw new IllegalStateException("cannot " + what + " the external PostgreSQL named by " + ENV_URL + " ("
                    + jdbcUrl + "); only a server started by PostgresServer.start() supports faults");
        }
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
    public void close() {
        if (external() || !closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down; the hook may run as well, which is harmless
        }
        stop("INT", STOP_TIMEOUT_SECONDS);
        Posix.deleteRecursively(baseDir);
        log.info("stopped PostgreSQL (pid {}) on port {}", pid(), port);
    }

    private void stopOnJvmExit() {
        if (closed.compareAndSet(false, true)) {
            stop("QUIT", 5);
            Posix.deleteRecursively(baseDir);
        }
    }

    /** Sends {@code signal} to the postmaster, waits, and kills it and its children if it lingers. */
    private void stop(String signal, long timeoutSeconds) {
        processLock.lock();
        try {
            Postmaster.stop(process, signal, timeoutSeconds);
        } finally {
            processLock.unlock();
        }
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
        Path base = null;
        Process process = null;
        try {
            base = Files.createTempDirectory("baton-postgres-");
            Postmaster postmaster = new Postmaster(bin, base);
            postmaster.initdb();
            long initialised = System.nanoTime();

            for (int attempt = 1; ; attempt++) {
                int port = ports.getAsInt();
                long logOffset = postmaster.logOffset();
                process = postmaster.spawn(port);
                if (postmaster.awaitReady(process, port, logOffset, READY_TIMEOUT_NANOS)) {
                    Postmaster.createDatabase(port, DATABASE);
                    long ready = System.nanoTime();
                    PostgresServer server = new PostgresServer(port, process, postmaster, base);
                    log.info(
                            "started PostgreSQL (pid {}) at {} in {} ms (binaries {} ms, initdb {} ms, startup {} ms); data in {}",
                            process.pid(),
                            server.jdbcUrl,
                            TimeUnit.NANOSECONDS.toMillis(ready - started),
                            TimeUnit.NANOSECONDS.toMillis(binariesReady - started),
                            TimeUnit.NANOSECONDS.toMillis(initialised - binariesReady),
                            TimeUnit.NANOSECONDS.toMillis(ready - initialised),
                            base);
                    return server;
                }
                process = null;
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException("PostgreSQL could not bind a free port in " + START_ATTEMPTS
                            + " attempts" + Posix.tail(postmaster.serverLog(), 0));
                }
                log.debug("port {} was taken before PostgreSQL could bind it; retrying", port);
            }
        } catch (IOException e) {
            cleanUp(process, base);
            throw new IllegalStateException("could not start PostgreSQL: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cleanUp(process, base);
            throw new IllegalStateException("interrupted while starting PostgreSQL", e);
        } catch (RuntimeException | Error e) {
            cleanUp(process, base);
            throw e;
        }
    }

    private static void cleanUp(Process process, Path base) {
        if (process != null) {
            Postmaster.stop(process, "QUIT", 5);
        }
        Posix.deleteRecursively(base);
    }
}
