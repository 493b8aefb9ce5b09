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
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL processes of one temporary directory ({@code data/}, {@code sockets/}, {@code
 * postgres.log}): creating the cluster, starting the postmaster on a port, waiting until it serves,
 * and stopping or killing it. {@link PostgresServer} decides when; this class knows how.
 */
final class Postmaster {

    private static final Logger log = LoggerFactory.getLogger(Postmaster.class);

    private final Path bin;
    private final Path base;
    private final List<String> prefix;

    /**
     * @param bin the {@code bin} directory of the PostgreSQL binaries
     * @param base the temporary directory that holds (or will hold) data, sockets and the log
     */
    Postmaster(Path bin, Path base) {
        this.bin = bin;
        this.base = base;
        this.prefix = Posix.isRoot() ? Posix.runAsNobodyPrefix() : List.of();
    }

    Path dataDir() {
        return base.resolve("data");
    }

    Path serverLog() {
        return base.resolve("postgres.log");
    }

    /** The current length of the server log: pass it to {@link #awaitReady} to read only what follows. */
    long logOffset() throws IOException {
        return Files.exists(serverLog()) ? Files.size(serverLog()) : 0;
    }

    /**
     * Creates {@code data/} and {@code sockets/} and runs {@code initdb} with user {@link
     * PostgresServer#USER} and password {@link PostgresServer#PASSWORD}. When the JVM runs as root,
     * both directories are handed to uid 65534, which runs PostgreSQL.
     *
     * @throws IllegalStateException if {@code initdb} fails
     */
    void initdb() throws IOException, InterruptedException {
        Path data = Files.createDirectory(
                dataDir(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path sockets = Files.createDirectory(base.resolve("sockets"));
        Path pwfile = Files.writeString(base.resolve("pwfile"), PostgresServer.PASSWORD + "\n", StandardCharsets.UTF_8);
        Path initdbLog = base.resolve("initdb.log");
        if (Posix.isRoot()) {
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
                PostgresServer.USER,
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
    }

    /** Starts {@code postgres} on {@code port} with durability off; its output is appended to the log. */
    Process spawn(int port) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                bin.resolve("postgres").toString(),
                "-D",
                dataDir().toString(),
                "-p",
                Integer.toString(port),
                "-h",
                FreePort.LOOPBACK,
                "-k",
                base.resolve("sockets").toString(),
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200"));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(serverLog().toFile()))
                .start();
    }

    /**
     * Waits until the postmaster accepts connections to its maintenance database. Returns {@code
     * false} if it exited because its port was taken.
     *
     * @throws IllegalStateException if it exits for another reason or is not ready within {@code
     *     timeoutNanos} (then it is stopped)
     */
    boolean awaitReady(Process process, int port, long logOffset, long timeoutNanos)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 5;
        SQLException last = null;
        while (true) {
            if (!process.isAlive()) {
                String tail = Posix.tail(serverLog(), logOffset);
                if (tail.contains("Address already in use") || tail.contains("could not create any TCP/IP sockets")) {
                    return false;
                }
                throw new IllegalStateException(
                        "PostgreSQL exited with code " + process.exitValue() + " while starting" + tail);
            }
            // Connect only once the postmaster says it listens: before that, whatever else holds the
            // port (if FreePort lost a race) could answer, or accept and never reply.
            if (postmasterReady()) {
                try (Connection connection = connect(port, "postgres")) {
                    if (isOurs(connection)) {
                        return true;
                    }
                } catch (SQLException e) {
                    last = e; // still in recovery, or not accepting yet: try again
                }
            }
            if (System.nanoTime() - deadline > 0) {
                IllegalStateException failure = new IllegalStateException(
                        "PostgreSQL did not accept connections on port " + port + " within "
                                + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s"
                                + Posix.tail(serverLog(), logOffset),
                        last);
                stop(process, "QUIT", 5);
                throw failure;
            }
            Thread.sleep(pause);
            pause = Math.min(100, pause * 2);
        }
    }

    /**
     * Creates {@code database} on the server at {@code port}.
     *
     * @throws IllegalStateException if it cannot
     */
    static void createDatabase(int port, String database) {
        try (Connection connection = connect(port, "postgres");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + database + ": " + e, e);
        }
    }

    private static Connection connect(int port, String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", PostgresServer.USER);
        props.setProperty("password", PostgresServer.PASSWORD);
        props.setProperty("connectTimeout", "5");
        props.setProperty("socketTimeout", "60");
        props.setProperty("ApplicationName", "baton-servers");
        return new org.postgresql.Driver().connect(PostgresServer.url(port, database), props);
    }

    /**
     * Whether {@code postmaster.pid} says the postmaster accepts connections (its 8th line is
     * {@code ready} since PostgreSQL 10).
     */
    private boolean postmasterReady() {
        try {
            List<String> lines = Files.readAllLines(dataDir().resolve("postmaster.pid"), StandardCharsets.UTF_8);
            return lines.size() >= 8 && lines.get(7).trim().equals("ready");
        } catch (IOException e) {
            return false; // not written yet, or removed by a postmaster that is exiting
        }
    }

    private boolean isOurs(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT current_setting('data_directory')")) {
            rs.next();
            Path reported = Path.of(rs.getString(1));
            try {
                return Files.isSameFile(reported, dataDir());
            } catch (IOException e) {
                return reported.equals(dataDir());
            }
        }
    }

    /**
     * Sends {@code signal} (INT: fast shutdown, QUIT: immediate shutdown) to the postmaster, waits,
     * and kills it and its children if it lingers.
     */
    static void stop(Process process, String signal, long timeoutSeconds) {
        try {
            if (process.isAlive()) {
                Posix.signal(process.pid(), signal);
                Posix.signal(process.pid(), "CONT"); // in case a fault test left it stopped
                if (process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    return;
                }
                log.warn(
                        "PostgreSQL (pid {}) did not exit within {} s after SIG{}; killing it",
                        process.pid(),
                        timeoutSeconds,
                        signal);
                kill(process, 5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * Kills the postmaster and every process below it with SIGKILL, as a crash of the server would,
     * and waits up to {@code timeoutSeconds} for all of them to be gone: a new postmaster refuses to
     * start while a process of the old one still holds its shared memory. Returns whether they all
     * exited in time.
     */
    static boolean kill(Process process, long timeoutSeconds) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroyForcibly); // SIGKILL ends a SIGSTOPped process too
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (ProcessHandle handle : all) {
            try {
                handle.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                log.warn("PostgreSQL process {} survived SIGKILL for {} s", handle.pid(), timeoutSeconds);
                return false;
            }
        }
        return true;
    }
}
