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
     * Creates {@code data/} and {@code sockets/} and fills {@code data/} with a copy of a cluster that
     * {@code initdb} made once (user {@link PostgresServer#USER}, password {@link
     * PostgresServer#PASSWORD}) and that is kept beside the binaries: {@code initdb} costs a second of
     * CPU and several of wall time, a copy a tenth of that, and every server of these binaries starts
     * from the same empty cluster anyway. When the JVM runs as root, both directories are handed to
     * uid 65534, which copies and runs PostgreSQL.
     *
     * @throws IllegalStateException if {@code initdb} or the copy fails
     */
    void initdb() throws IOException, InterruptedException {
        Path template = template();
        Path data = Files.createDirectory(
                dataDir(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path sockets = Files.createDirectory(base.resolve("sockets"));
        if (Posix.isRoot()) {
            Posix.requireReachableByOthers(base.getParent());
            Posix.openUp(base); // nobody must be able to reach data/ and sockets/
            Posix.chownToNobody(data);
            Posix.chownToNobody(sockets);
        }
        // cp as the user that runs PostgreSQL, so that the copy is that user's; "data/." copies the
        // content into the existing data/, which keeps its owner-only permissions (PostgreSQL checks them).
        List<String> copy = new ArrayList<>(prefix);
        copy.addAll(List.of("cp", "-R", template.resolve("data") + "/.", data.toString()));
        Path copyLog = base.resolve("initdb.log");
        int exit = Posix.run(copy, copyLog, 120);
        if (exit != 0) {
            throw new IllegalStateException("copying the PostgreSQL cluster " + template + " into " + data
                    + " failed with exit code " + exit + Posix.tail(copyLog, 0));
        }
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
    }

    /**
     * The cluster {@code initdb} made for these binaries, in the binaries' cache, made first if it is
     * not there yet (concurrent JVMs keep one copy, see {@link BinaryCache}). Its name carries the
     * binaries' directory name and the {@code initdb} options, so that new binaries or options make a
     * new one.
     */
    private Path template() {
        Path binaries = bin.getParent();
        List<String> options = initdbOptions();
        // the password is part of what the cluster holds: another one makes another cluster
        String key = binaries.getFileName() + "-cluster-"
                + Integer.toHexString(
                        (String.join(" ", options) + " " + PostgresServer.PASSWORD).hashCode() & 0x7fffffff)
                + (Posix.isRoot() ? "-nobody" : "");
        return BinaryCache.install(
                "a PostgreSQL cluster made by initdb",
                binaries.getParent(),
                key,
                true,
                dir -> Files.isRegularFile(dir.resolve("data").resolve("PG_VERSION"))
                        && Files.isRegularFile(
                                dir.resolve("data").resolve("global").resolve("pg_control")),
                this::runInitdb);
    }

    /** Runs {@code initdb} into {@code into/data}; BinaryCache then renames {@code into} into place. */
    private void runInitdb(Path into) throws IOException, InterruptedException {
        Path data = Files.createDirectory(
                into.resolve("data"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path pwfile = Files.writeString(into.resolve("pwfile"), PostgresServer.PASSWORD + "\n", StandardCharsets.UTF_8);
        Path initdbLog = base.resolve("initdb.log");
        if (Posix.isRoot()) {
            Posix.requireReachableByOthers(bin);
            Posix.requireReachableByOthers(into.getParent());
            Posix.openUp(into); // nobody must be able to reach data/ and the password file
            Posix.chownToNobody(data);
            Posix.chownToNobody(pwfile);
        }
        List<String> initdb = new ArrayList<>(prefix);
        initdb.add(bin.resolve("initdb").toString());
        initdb.addAll(List.of("-D", data.toString(), "--pwfile=" + pwfile));
        initdb.addAll(initdbOptions());
        try {
            int exit = Posix.run(initdb, initdbLog, 120);
            if (exit != 0) {
                throw new IllegalStateException("initdb failed with exit code " + exit + Posix.tail(initdbLog, 0));
            }
        } finally {
            Files.delete(pwfile);
        }
    }

    /** The options of {@code initdb} besides the directory and the password file. */
    private static List<String> initdbOptions() {
        return List.of("-U", PostgresServer.USER, "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync");
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
