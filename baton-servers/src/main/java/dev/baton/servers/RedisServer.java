package dev.baton.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis server in a child process on a free port on {@code 127.0.0.1}, started from the
 * {@code redis-server} binary inside {@code com.github.codemonstur:embedded-redis} with persistence
 * off ({@code --save "" --appendonly no}) and a private temporary directory.
 *
 * <p>{@link #start()} honours the environment variable {@code BATON_REDIS_URI}: when it is set,
 * nothing is started, {@link #uri()} is that URI, {@link #external()} is {@code true}, {@link
 * #pid()} is {@code -1} and {@link #close()} does nothing. {@link #startEmbedded(String...)} always
 * starts a server (for fault tests and for several independent masters).
 *
 * <p>Guarantees: once a start method returns, the server answers {@code PING}. Fault tests may
 * {@link #pause()} and {@link #resume()} it (SIGSTOP/SIGCONT to {@link #pid()}), {@link #kill()} it,
 * or {@link #restart()} it
 * on the same port: without persistence it comes back empty, as a crashed production server without
 * persistence does.
 *
 * <p>Failure behaviour: start methods throw {@link IllegalStateException} with the tail of the
 * server log when the server cannot start or is not ready within 30 s; they retry a few times on a
 * port clash and remove what they created before throwing. {@link #close()} stops the process with
 * SIGTERM (SIGKILL after 10 s) and deletes the temporary directory; a JVM shutdown hook does the
 * same if {@code close()} was never called. Thread-safe.
 */
public final class RedisServer extends ManagedServer {
    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);

    /** Environment variable naming an external server, e.g. {@code redis://:secret@host:6379/0}. */
    public static final String ENV_URI = "BATON_REDIS_URI";

    private static final int START_ATTEMPTS = 5;
    private static final Duration RESTART_PORT_WAIT = Duration.ofSeconds(10);

    private final String uri;
    private final String host;
    private final int port;
    private final Path dir; // null when external

    private RedisServer(String uri, String host, int port) {
        super(ManagedProcess.external("the external Redis named by " + ENV_URI));
        this.uri = uri;
        this.host = host;
        this.port = port;
        this.dir = null;
    }

    private RedisServer(int port, Path dir, ManagedProcess process) {
        super(process);
        this.uri = "redis://" + FreePort.LOOPBACK + ":" + port;
        this.host = FreePort.LOOPBACK;
        this.port = port;
        this.dir = dir;
    }

    /**
     * Starts an embedded server, or reports the external one named by {@code BATON_REDIS_URI}.
     *
     * @return a running server; the caller closes it, and a JVM shutdown hook stops it otherwise
     * @throws IllegalStateException if the server cannot be started (with the tail of its log) or
     *     {@code BATON_REDIS_URI} is not a valid URI
     */
    public static RedisServer start() {
        return start(System.getenv());
    }

    static RedisServer start(Map<String, String> env) {
        String external = env.get(ENV_URI);
        if (external != null && !external.isBlank()) {
            URI parsed;
            try {
                parsed = URI.create(external.trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(ENV_URI + " is not a valid URI: " + e.getMessage(), e);
            }
            if (parsed.getHost() == null) {
                throw new IllegalStateException(
                        ENV_URI + " must name a host, as in redis://host:6379, but was " + redact(external));
            }
            log.info("using external Redis at {} ({} is set)", redact(external), ENV_URI);
            return new RedisServer(external.trim(), parsed.getHost(), parsed.getPort() < 0 ? 6379 : parsed.getPort());
        }
        return startEmbedded();
    }

    /**
     * Starts an embedded server with extra {@code redis-server} arguments (for example {@code
     * "--requirepass", "secret"}), ignoring {@code BATON_REDIS_URI}.
     *
     * @param extraArgs arguments appended to the server's command line
     * @return a running server; the caller closes it
     * @throws IllegalStateException if the server cannot be started (with the tail of its log)
     */
    public static RedisServer startEmbedded(String... extraArgs) {
        return launch(FreePort::find, List.of(extraArgs), null);
    }

    /**
     * Starts {@code count} independent embedded masters (for Redlock). If one fails to start, the
     * ones already started are stopped.
     *
     * @param count how many masters to start
     * @return the running masters, each on its own port; the caller closes each
     * @throws IllegalStateException if one cannot be started
     */
    public static List<RedisServer> startMasters(int count) {
        List<RedisServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                servers.add(startEmbedded());
            }
            return servers;
        } catch (RuntimeException e) {
            servers.forEach(RedisServer::close);
            throw e;
        }
    }

    /** Starts a process with a config file written into its directory first (Sentinel needs one). */
    static RedisServer launch(IntSupplier ports, List<String> extraArgs, ConfigWriter config) {
        Path exe = RedisBinary.executable();
        Path dir = Posix.createTempDirectory("baton-redis-");
        ManagedProcess process = ManagedProcess.builder("Redis", dir.resolve("redis.log"))
                .portTakenWhen("Address already in use")
                .deleteOnClose(dir)
                .build();
        // Any reply (+PONG, or -NOAUTH with requirepass) means this server listens.
        int port = process.closeOnFailure(() -> process.startOnFreePort(
                ports, START_ATTEMPTS, p -> command(exe, dir, p, extraArgs, config), Resp::answers));
        RedisServer server = new RedisServer(port, dir, process);
        log.info("started Redis (pid {}) at {}; data in {}", process.pid(), server.uri, dir);
        return server;
    }

    private static List<String> command(Path exe, Path dir, int port, List<String> extraArgs, ConfigWriter config) {
        List<String> command = new ArrayList<>(List.of(exe.toString()));
        if (config != null) {
            try {
                command.add(config.write(dir, port).toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        command.addAll(List.of(
                "--port",
                Integer.toString(port),
                "--bind",
                FreePort.LOOPBACK,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString(),
                "--daemonize",
                "no",
                "--logfile",
                dir.resolve("redis.log").toString()));
        command.addAll(extraArgs);
        return command;
    }

    /** Writes a config file for a server about to listen on {@code port}; returns its path. */
    @FunctionalInterface
    interface ConfigWriter {
        Path write(Path dir, int port) throws IOException;
    }

    /** {@return the URI to connect to, such as {@code redis://127.0.0.1:6379}} */
    public String uri() {
        return uri;
    }

    /** {@return the host the server listens on} */
    public String host() {
        return host;
    }

    /** {@return the port the server listens on} */
    public int port() {
        return port;
    }

    /** {@return the server's log file, or null for an external server} */
    Path logFile() {
        return dir == null ? null : dir.resolve("redis.log");
    }

    /** Kills the process with SIGKILL (a crash); {@link #restart()} brings it back empty. */
    public void kill() {
        process.kill();
    }

    /**
     * Stops the process with SIGSTOP (a pause, as a long GC pause or a frozen VM): it keeps its
     * connections open but answers nothing until {@link #resume()}. {@link #kill()} and {@link
     * #close()} continue it first, so a paused server is still cleaned up.
     *
     * @throws IllegalStateException if the server is external, not running, or the signal failed
     */
    public void pause() {
        process.signal("STOP", "pause");
    }

    /** Continues a process stopped by {@link #pause()} (SIGCONT); harmless on a running one. */
    public void resume() {
        process.signal("CONT", "resume");
    }

    /**
     * Kills the server (if running) and starts it again on the same port with the same arguments.
     * Without persistence it comes back with no keys.
     *
     * @throws IllegalStateException if it cannot be started again (for example the port was taken)
     */
    public void restart() {
        process.restart(false, RESTART_PORT_WAIT);
    }

    static String redact(String uri) {
        return uri.replaceAll("://([^/@:]*):[^/@]*@", "://$1:***@");
    }

    @Override
    public String toString() {
        return "RedisServer[" + redact(uri) + (external() ? ", external" : ", pid " + pid()) + "]";
    }
}
