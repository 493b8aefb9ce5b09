package dev.baton.servers;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.h2.api.ErrorCode;
import org.h2.tools.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An H2 in-memory database in this JVM, served by H2's TCP server on a free port so that other
 * JVMs can reach it at {@link #jdbcUrl()} ({@code jdbc:h2:tcp://127.0.0.1:<port>/mem:baton}).
 *
 * <p>The database is named {@code baton}. In-memory H2 databases are global to a JVM, so when
 * another {@code H2Server} in the same JVM is still using that name, the new one gets {@code
 * baton_2}, {@code baton_3}, ... instead; the database of each server is therefore private to it.
 * The database lives until {@link #close()} (a connection held by this object keeps it alive).
 * User {@code sa}, password {@code baton}. The TCP server accepts connections from this machine
 * only (H2 refuses remote clients without {@code -tcpAllowOthers}), and its threads are daemons,
 * so a forgotten server does not keep the JVM alive.
 *
 * <p>If the environment variable {@code BATON_H2_URL} is set, nothing is started: the server
 * reports that URL with {@code BATON_H2_USER} and {@code BATON_H2_PASSWORD} (defaults {@code sa}
 * / empty), {@link #external()} is {@code true} and {@link #close()} does nothing.
 *
 * <p>Failure behaviour: {@link #start()} throws {@link IllegalStateException} if the database or
 * the TCP server cannot be started (it retries a few times on a port clash) and releases whatever
 * it created. {@link #close()} stops the TCP server (breaking open remote connections) and drops
 * the in-memory database; problems are logged, not thrown.
 */
public final class H2Server implements DatabaseServer {

    private static final Logger log = LoggerFactory.getLogger(H2Server.class);

    static final String ENV_URL = "BATON_H2_URL";
    static final String ENV_USER = "BATON_H2_USER";
    static final String ENV_PASSWORD = "BATON_H2_PASSWORD";

    static final String DATABASE = "baton";
    static final String USER = "sa";
    static final String PASSWORD = "baton";
    private static final int DEFAULT_PORT = 9092;
    private static final int START_ATTEMPTS = 5;

    /** Names of in-memory databases in use by running servers of this JVM. */
    private static final Set<String> NAMES_IN_USE = ConcurrentHashMap.newKeySet();

    private static final AtomicInteger NEXT_SUFFIX = new AtomicInteger(2);

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    private final String database; // null when external
    private final Server tcpServer; // null when external
    private final Connection keepAlive; // null when external
    private final AtomicBoolean closed = new AtomicBoolean();

    private H2Server(
            String jdbcUrl,
            String user,
            String password,
            String host,
            int port,
            String database,
            Server tcpServer,
            Connection keepAlive) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.host = host;
        this.port = port;
        this.database = database;
        this.tcpServer = tcpServer;
        this.keepAlive = keepAlive;
    }

    /**
     * Starts a new H2 database with its TCP server, or reports the external server named by {@code
     * BATON_H2_URL}. Blocks until the server accepts connections.
     *
     * @return the running server, which the caller must {@link #close()}
     * @throws IllegalStateException if the server cannot be started; see the class description
     */
    public static H2Server start() {
        return start(System.getenv());
    }

    static H2Server start(Map<String, String> env) {
        return start(env, FreePort::find);
    }

    /** {@code ports} supplies the port for each start attempt; for tests. */
    static H2Server start(Map<String, String> env, IntSupplier ports) {
        String url = env.get(ENV_URL);
        if (url != null && !url.isBlank()) {
            JdbcUrls.HostPort hostPort;
            try {
                hostPort = JdbcUrls.parse(url, DEFAULT_PORT, new JdbcUrls.HostPort("", -1));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(ENV_URL + " is not a valid JDBC URL: " + e.getMessage(), e);
            }
            log.info("using external H2 at {} ({} is set)", url, ENV_URL);
            return new H2Server(
                    url,
                    env.getOrDefault(ENV_USER, "sa"),
                    env.getOrDefault(ENV_PASSWORD, ""),
                    hostPort.host(),
                    hostPort.port(),
                    null,
                    null,
                    null);
        }
        return launch(ports);
    }

    private static String claimName() {
        if (NAMES_IN_USE.add(DATABASE)) {
            return DATABASE;
        }
        while (true) {
            String name = DATABASE + "_" + NEXT_SUFFIX.getAndIncrement();
            if (NAMES_IN_USE.add(name)) {
                return name;
            }
        }
    }

    private static H2Server launch(IntSupplier ports) {
        String name = claimName();
        Connection keepAlive = null;
        try {
            Properties props = new Properties();
            props.setProperty("user", USER);
            props.setProperty("password", PASSWORD);
            keepAlive = org.h2.Driver.load().connect("jdbc:h2:mem:" + name, props);
            Server tcpServer = startTcpServer(ports);
            int port = tcpServer.getPort();
            String url = "jdbc:h2:tcp://" + FreePort.LOOPBACK + ":" + port + "/mem:" + name;
            log.info("started H2 at {}", url);
            return new H2Server(url, USER, PASSWORD, FreePort.LOOPBACK, port, name, tcpServer, keepAlive);
        } catch (SQLException | RuntimeException e) {
            dropDatabase(keepAlive);
            NAMES_IN_USE.remove(name);
            throw e instanceof IllegalStateException ise
                    ? ise
                    : new IllegalStateException("could not start H2: " + e.getMessage(), e);
        }
    }

    private static Server startTcpServer(IntSupplier ports) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            int port = ports.getAsInt();
            try {
                return Server.createTcpServer("-tcpPort", Integer.toString(port), "-tcpDaemon")
                        .start();
            } catch (SQLException e) {
                if (e.getErrorCode() != ErrorCode.EXCEPTION_OPENING_PORT_2 || attempt == START_ATTEMPTS) {
                    throw e;
                }
                log.debug("port {} was taken before H2 could bind it; retrying", port);
            }
        }
    }

    private static void dropDatabase(Connection keepAlive) {
        if (keepAlive == null) {
            return;
        }
        try (keepAlive;
                Statement statement = keepAlive.createStatement()) {
            statement.execute("SHUTDOWN");
        } catch (SQLException e) {
            log.warn("could not shut down H2 database", e);
        }
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
        return tcpServer == null;
    }

    @Override
    public void close() {
        if (tcpServer == null || !closed.compareAndSet(false, true)) {
            return;
        }
        try {
            tcpServer.stop();
        } catch (RuntimeException e) {
            log.warn("could not stop H2 TCP server on port {}", port, e);
        }
        dropDatabase(keepAlive);
        NAMES_IN_USE.remove(database);
        log.info("stopped H2 at {}", jdbcUrl);
    }

    @Override
    public String toString() {
        return "H2Server[" + jdbcUrl + (external() ? ", external" : "") + "]";
    }
}
