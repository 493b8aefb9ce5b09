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

/**
 * The PostgreSQL processes of one temporary directory ({@code data/}, {@code sockets/}, {@code
 * postgres.log}): creating the cluster, the command that starts the postmaster on a port, and
 * telling when it serves. {@link PostgresServer} runs it through a {@link ManagedProcess}.
 */
final class Postmaster {

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

    /** The command that runs {@code postgres} on {@code port} with durability off. */
    List<String> command(int port) {
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
        return command;
    }

    /**
     * Whether the postmaster on {@code port} accepts connections to its maintenance database and is
     * the one serving this data directory.
     *
     * @throws SQLException if connecting fails (still in recovery, or not accepting yet)
     */
    boolean ready(int port) throws SQLException {
        // Connect only once the postmaster says it listens: before that, whatever else holds the
        // port (if FreePort lost a race) could answer, or accept and never reply.
        if (!postmasterReady()) {
            return false;
        }
        try (Connection connection = connect(port, "postgres")) {
            return isOurs(connection);
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
}
