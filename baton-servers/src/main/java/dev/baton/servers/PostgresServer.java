package dev.baton.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    private final Process process; // null when external
    private final Path baseDir; // null when external
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private PostgresServer(String jdbcUrl, String user, String password, String host, int port) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.host = host;
        this.port = port;
        this.process = null;
        this.baseDir = null;
        this.shutdownHook = null;
    }

    private PostgresServer(int port, Process process, Path baseDir) {
        this.jdbcUrl = url(port, DATABASE);
        this.user = USER;
        this.password = PASSWORD;
        this.host = FreePort.LOOPBACK;
        this.port = port;
        this.process = process;
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
        return process == null;
    }

    /**
     * {@return the pid of the postmaster process, or {@code -1} for an external server} This is the
     * process to send SIGSTOP/SIGCONT to in fault tests. It is still returned after {@link
     * #close()}.
     */
    public long pid() {
        return process == null ? -1 : process.pid();
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
        if (process == null || !closed.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down; the hook may run as well, which is harmless
        }
        stop("INT", STOP_TIMEOUT_SECONDS);
        Posix.deleteRecursively(baseDir);
        log.info("stopped PostgreSQL (pid {}) on port {}", process.pid(), port);
    }

    private void stopOnJvmExit() {
        if (closed.compareAndSet(false, true)) {
            stop("QUIT", 5);
            Posix.deleteRecursively(baseDir);
        }
    }

    /** Sends {@code signal} to the postmaster, waits, and kills it and its children if it lingers. */
    private void stop(String signal, long timeoutSeconds) {
        stop(process, signal, timeoutSeconds);
    }

    private static void stop(Process process, String signal, long timeoutSeconds) {
        try {
            if (process.isAlive()) {
                Posix.signal(process.pid(), signal);
                Posix.signal(process.pid(), "CONT"); // in case a fault test left it stopped
                if (process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    return;
                }
                log.warn(
                        "PostgreSQL (pid {}) did not exit within {} s after SIGINT/SIGQUIT; killing it",
                        process.pid(),
                        timeoutSeconds);
                List<ProcessHandle> children = process.descendants().toList();
                process.destroyForcibly();
                children.forEach(ProcessHandle::destroyForcibly);
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    log.warn("PostgreSQL (pid {}) survived SIGKILL for 5 s", process.pid());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return "PostgresServer[" + jdbcUrl + (external() ? ", external" : ", pid " + pid()) + "]";
    }

    private static String url(int port, String database) {
        return "jdbc:postgresql://" + FreePort.LOOPBACK + ":" + port + "/" + database;
    }

    // ---------------------------------------------------------------------------------------------
    // launching

    private static PostgresServer launch(IntSupplier ports) {
        long started = System.nanoTime();
        Path bin = PostgresBinaries.installDir().resolve("bin");
        long binariesReady = System.nanoTime();
        boolean root = Posix.isRoot();
        List<String> prefix = root ? Posix.runAsNobodyPrefix() : List.of();
        Path base = null;
        Process process = null;
        try {
            base = Files.createTempDirectory("baton-postgres-");
            Path data = Files.createDirectory(
                    base.resolve("data"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path sockets = Files.createDirectory(base.resolve("sockets"));
            Path pwfile = Files.writeString(base.resolve("pwfile"), PASSWORD + "\n", StandardCharsets.UTF_8);
            Path initdbLog = base.resolve("initdb.log");
            Path serverLog = base.resolve("postgres.log");
            if (root) {
                Posix.requireReachableByOthers(bin);
                Posix.requireReachableByOthers(base.getParent());
                Posix.openUp(base); // nobody must be able to reach data/ and sockets/
                Posix.chownToNobody(data);
                Posix.chownToNobody(sockets);
                Posix.chownToNobody(pwfile);
            }

            List<String> initdb = new ArrayList<>(prefix);
            initdb.addAll(List.of(
                    bin.resolve("initdb").toString(),
                    "-D",
                    data.toString(),
                    "-U",
                    USER,
                    "--pwfile=" + pwfile,
                    "-A",
                    "scram-sha-256",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync"));
            int exit = Posix.run(initdb, initdbLog, 120);
            if (exit != 0) {
                throw new IllegalStateException("initdb failed with exit code " + exit + Posix.tail(initdbLog, 0));
            }
            Files.delete(pwfile);
            long initialised = System.nanoTime();

            for (int attempt = 1; ; attempt++) {
                int port = ports.getAsInt();
                List<String> command = new ArrayList<>(prefix);
                command.addAll(List.of(
                        bin.resolve("postgres").toString(),
                        "-D",
                        data.toString(),
                        "-p",
                        Integer.toString(port),
                        "-h",
                        FreePort.LOOPBACK,
                        "-k",
                        sockets.toString(),
                        "-c",
                        "fsync=off",
                        "-c",
                        "synchronous_commit=off",
                        "-c",
                        "full_page_writes=off",
                        "-c",
                        "max_connections=200"));
                long logOffset = Files.exists(serverLog) ? Files.size(serverLog) : 0;
                process = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
                        .start();
                if (awaitReady(process, port, data, serverLog, logOffset)) {
                    long ready = System.nanoTime();
                    PostgresServer server = new PostgresServer(port, process, base);
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
                            + " attempts" + Posix.tail(serverLog, 0));
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
            stop(process, "QUIT", 5);
        }
        Posix.deleteRecursively(base);
    }

    /**
     * Waits until the postmaster accepts connections, then creates the database. Returns {@code
     * false} if the postmaster exited because its port was taken.
     *
     * @throws IllegalStateException if it exits for another reason or is not ready within 60 s
     */
    private static boolean awaitReady(Process process, int port, Path data, Path serverLog, long logOffset)
            throws InterruptedException, IOException {
        org.postgresql.Driver driver = new org.postgresql.Driver();
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", PASSWORD);
        props.setProperty("connectTimeout", "5");
        props.setProperty("socketTimeout", "60");
        props.setProperty("ApplicationName", "baton-servers");
        String adminUrl = url(port, "postgres");
        long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
        long pause = 5;
        SQLException last = null;
        while (true) {
            if (!process.isAlive()) {
                String tail = Posix.tail(serverLog, logOffset);
                if (tail.contains("Address already in use") || tail.contains("could not create any TCP/IP sockets")) {
                    return false;
                }
                throw new IllegalStateException(
                        "PostgreSQL exited with code " + process.exitValue() + " while starting" + tail);
            }
            // Connect only once the postmaster says it listens: before that, whatever else holds the
            // port (if FreePort lost a race) could answer, or accept and never reply.
            if (postmasterReady(data)) {
                try {
                    if (createDatabase(driver, adminUrl, props, data)) {
                        return true;
                    }
                } catch (SQLException e) {
                    last = e;
                }
            }
            if (System.nanoTime() > deadline) {
                IllegalStateException failure = new IllegalStateException(
                        "PostgreSQL did not accept connections on port " + port + " within 60 s"
                                + Posix.tail(serverLog, logOffset),
                        last);
                stop(process, "QUIT", 5);
                throw failure;
            }
            Thread.sleep(pause);
            pause = Math.min(100, pause * 2);
        }
    }

    /**
     * Connects to the maintenance database and creates {@link #DATABASE}; returns {@code false} if
     * the server that answered is not the one using {@code data}.
     *
     * @throws SQLException if connecting fails (the caller retries)
     * @throws IllegalStateException if connecting works but creating the database fails
     */
    private static boolean createDatabase(org.postgresql.Driver driver, String url, Properties props, Path data)
            throws SQLException {
        try (Connection connection = driver.connect(url, props)) {
            if (!isOurs(connection, data)) {
                return false;
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE " + DATABASE);
            } catch (SQLException e) {
                throw new IllegalStateException("could not create database " + DATABASE, e);
            }
            return true;
        }
    }

    /**
     * Whether {@code postmaster.pid} says the postmaster accepts connections (its 8th line is
     * {@code ready} since PostgreSQL 10).
     */
    private static boolean postmasterReady(Path data) {
        try {
            List<String> lines = Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8);
            return lines.size() >= 8 && lines.get(7).trim().equals("ready");
        } catch (IOException e) {
            return false; // not written yet, or removed by a postmaster that is exiting
        }
    }

    private static boolean isOurs(Connection connection, Path data) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT current_setting('data_directory')")) {
            rs.next();
            Path reported = Path.of(rs.getString(1));
            try {
                return Files.isSameFile(reported, data);
            } catch (IOException e) {
                return reported.equals(data);
            }
        }
    }
}
