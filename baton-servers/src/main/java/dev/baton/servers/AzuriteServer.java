package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Azurite's blob service (the Azure Storage emulator, npm package {@code azurite}) in a child process
 * on a free port on {@code 127.0.0.1}, with in-memory persistence and a private temporary working
 * directory, started with {@code --skipApiVersionCheck} (the Azure SDK may send an API version newer
 * than the emulator knows) and {@code --disableTelemetry}.
 *
 * <p>Where the program comes from, first found wins: the environment variable {@value #ENV_BIN} (the
 * path of {@code azurite-blob}); {@code $XDG_CACHE_HOME/baton/azurite-3.35.0} (or {@code
 * ~/.cache/baton/azurite-3.35.0}), where {@code ./test} installs azurite {@value #VERSION} with npm;
 * {@code azurite-blob} on the {@code PATH}. It runs on Node.js: {@code
 * $XDG_CACHE_HOME/baton/node-20} (a Node 20 from npm's {@code node} package, which {@code ./test}
 * installs where the system's Node is older than 20: azurite 3.35.0's dependencies want 20, newer
 * azurite releases 22) when present, else {@code node} on the {@code PATH}.
 *
 * <p>{@link #start()} honours the environment variable {@value #ENV_URI}: when it is set to an
 * {@code azblob://} URI (an Azure account, or an Azurite started elsewhere), nothing is started,
 * {@link #uri(String)} returns it unchanged, {@link #external()} is true and {@link #close()} does
 * nothing.
 *
 * <p>Guarantees: once {@link #start()} returns, the blob service answers HTTP on {@link #port()}.
 * Failure behaviour: start throws {@link IllegalStateException} naming what is missing and how to
 * install it, or with the tail of Azurite's output when it exits or is not ready within 30 s; it
 * retries on a port clash and removes what it created before throwing. {@link #close()} stops the
 * process by its pid (SIGTERM, then SIGKILL after 10 s) and deletes the working directory; a JVM
 * shutdown hook does the same if {@code close()} was never called.
 */
public final class AzuriteServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AzuriteServer.class);

    /** An {@code azblob://} URI of an external account or emulator to use instead of starting Azurite. */
    public static final String ENV_URI = "BATON_AZURE_URI";
    /** The path of an {@code azurite-blob} program to start instead of the one found by default. */
    public static final String ENV_BIN = "BATON_AZURITE_BIN";
    /** The azurite release {@code ./test} installs: the newest that runs on Node 20. */
    public static final String VERSION = "3.35.0";
    /** Azurite's well-known development account (public, documented by Microsoft). */
    public static final String ACCOUNT = "devstoreaccount1";
    /** The well-known key of {@link #ACCOUNT} (public, documented by Microsoft). */
    public static final String ACCOUNT_KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private static final int START_ATTEMPTS = 5;
    private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String externalUri; // null when embedded
    private final String host;
    private final int port;
    private final Path dir; // null when external
    private final List<String> command; // null when external
    private final Path logFile; // null when external
    private volatile Process process; // null when external; replaced by restart()
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private AzuriteServer(String externalUri, String host, int port) {
        this.externalUri = externalUri;
        this.host = host;
        this.port = port;
        this.dir = null;
        this.command = null;
        this.logFile = null;
        this.process = null;
        this.shutdownHook = null;
    }

    private AzuriteServer(int port, Path dir, List<String> command, Path logFile, Process process) {
        this.externalUri = null;
        this.host = FreePort.LOOPBACK;
        this.port = port;
        this.dir = dir;
        this.command = List.copyOf(command);
        this.logFile = logFile;
        this.process = process;
        this.shutdownHook = new Thread(this::stopOnJvmExit, "baton-azurite-stop-" + port);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts Azurite, or reports the external service named by {@value #ENV_URI}.
     *
     * @return a running service; the caller closes it, and a JVM shutdown hook stops it otherwise
     * @throws IllegalStateException if Azurite is not installed (the message says how to install it
     *     or name an external service), does not start, or {@value #ENV_URI} is not an {@code
     *     azblob://} URI
     */
    public static AzuriteServer start() {
        return start(System.getenv());
    }

    static AzuriteServer start(Map<String, String> env) {
        String external = env.get(ENV_URI);
        if (external != null && !external.isBlank()) {
            String uri = external.trim();
            URI endpoint = externalEndpoint(uri);
            log.info("using the external Azure Blob service of {} ({} is set)", redact(uri), ENV_URI);
            int port = endpoint.getPort() > 0 ? endpoint.getPort() : "http".equals(endpoint.getScheme()) ? 80 : 443;
            return new AzuriteServer(uri, endpoint.getHost(), port);
        }
        return startEmbedded(env, false);
    }

    /**
     * Starts Azurite keeping its containers and blobs (with their metadata) on disk in its working
     * directory rather than in memory, so that {@link #restart()} finds them again; never external.
     * Not their leases: Azurite 3.35.0 comes back from a restart with every lease expired (measured:
     * a 15 s lease taken 3 s before a restart could be taken by another lease id right after it),
     * where Azure keeps them.
     *
     * @return a running service; the caller closes it
     * @throws IllegalStateException as {@link #start()} does
     */
    public static AzuriteServer startPersistent() {
        return startEmbedded(System.getenv(), true);
    }

    /** The service endpoint of an external URI: its {@code endpoint=} parameter, else the account's. */
    private static URI externalEndpoint(String uri) {
        if (!uri.startsWith("azblob://")) {
            throw new IllegalStateException(ENV_URI + " must be an azblob:// URI, such as"
                    + " azblob://account/container?endpoint=http://host:10000/account, but was " + redact(uri));
        }
        int query = uri.indexOf('?');
        if (query >= 0) {
            for (String pair : uri.substring(query + 1).split("&")) {
                if (pair.toLowerCase(java.util.Locale.ROOT).startsWith("endpoint=")) {
                    return URI.create(java.net.URLDecoder.decode(pair.substring(9), StandardCharsets.UTF_8));
                }
            }
        }
        String rest = uri.substring("azblob://".length());
        int slash = rest.indexOf('/');
        String account = slash < 0 ? rest : rest.substring(0, slash);
        return URI.create("https://" + account + ".blob.core.windows.net");
    }

    private static AzuriteServer startEmbedded(Map<String, String> env, boolean persistent) {
        List<String> program = program(env);
        Path dir = null;
        try {
            dir = Files.createTempDirectory("baton-azurite-");
            Path logFile = dir.resolve("azurite.log");
            for (int attempt = 1; ; attempt++) {
                int port = FreePort.find();
                List<String> command = new ArrayList<>(program);
                command.addAll(List.of(
                        "--blobHost",
                        FreePort.LOOPBACK,
                        "--blobPort",
                        Integer.toString(port),
                        persistent ? "--location" : "--inMemoryPersistence"));
                if (persistent) {
                    command.add(dir.resolve("data").toString());
                }
                command.addAll(
                        List.of("--skipApiVersionCheck", "--disableProductStyleUrl", "--disableTelemetry", "--silent"));
                Process process = new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                        .start();
                if (awaitReady(process, port, logFile)) {
                    AzuriteServer server = new AzuriteServer(port, dir, command, logFile, process);
                    log.info(
                            "started Azurite {} blob service (pid {}) at {}",
                            VERSION,
                            process.pid(),
                            server.endpoint());
                    return server;
                }
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException("Azurite could not bind a free port in " + START_ATTEMPTS
                            + " attempts" + Posix.tail(logFile, 0));
                }
            }
        } catch (IOException e) {
            Posix.deleteRecursively(dir);
            throw new IllegalStateException("could not start Azurite (" + String.join(" ", program) + "): " + e, e);
        } catch (RuntimeException e) {
            Posix.deleteRecursively(dir);
            throw e;
        }
    }

    /** The command that starts {@code azurite-blob}, or a clear error saying how to install it. */
    static List<String> program(Map<String, String> env) {
        Path node = cacheBase(env).resolve("baton/node-20/node_modules/.bin/node");
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(node)) {
            command.add(node.toString());
        }
        command.add(azuriteBlob(env).toString());
        return command;
    }

    private static Path azuriteBlob(Map<String, String> env) {
        String given = env.get(ENV_BIN);
        if (given != null && !given.isBlank()) {
            Path path = Path.of(given.trim());
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(ENV_BIN + "=" + given + " is not an executable file; point it at"
                        + " azurite-blob (node_modules/.bin/azurite-blob of an npm install of azurite)");
            }
            return path;
        }
        Path cached = cacheDir(env).resolve("node_modules/.bin/azurite-blob");
        if (Files.isExecutable(cached)) {
            return cached;
        }
        Path onPath = onPath(env, "azurite-blob");
        if (onPath != null) {
            return onPath;
        }
        String node =
                onPath(env, "node") == null ? " Node.js is missing too (Debian: apt-get install -y nodejs npm)." : "";
        throw new IllegalStateException("Azurite (npm package azurite) was not found, so the Azure Blob tests cannot"
                + " start their server." + node + " Run ./test, which installs it, or install it yourself: npm install"
                + " --prefix " + cacheDir(env) + " azurite@" + VERSION + " (or set " + ENV_BIN + " to an azurite-blob"
                + " program, or " + ENV_URI + " to an external azblob:// URI)");
    }

    /** Where {@code ./test} installs azurite: {@code $XDG_CACHE_HOME/baton/azurite-VERSION}. */
    static Path cacheDir(Map<String, String> env) {
        return cacheBase(env).resolve("baton").resolve("azurite-" + VERSION);
    }

    private static Path cacheBase(Map<String, String> env) {
        String cache = env.get("XDG_CACHE_HOME");
        return cache != null && !cache.isBlank() ? Path.of(cache) : Path.of(System.getProperty("user.home"), ".cache");
    }

    private static Path onPath(Map<String, String> env, String program) {
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return Path.of(dir, program);
            }
        }
        return null;
    }

    /** Waits until Azurite answers HTTP on {@code port}; false if it exited because the port was taken. */
    private static boolean awaitReady(Process process, int port, Path logFile) {
        long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
        long pause = 5;
        while (true) {
            if (!process.isAlive()) {
                String tail = Posix.tail(logFile, 0);
                if (tail.contains("EADDRINUSE")) {
                    return false;
                }
                throw new IllegalStateException("Azurite exited with code " + process.exitValue() + " while starting"
                        + tail
                        + (tail.contains("SyntaxError") || tail.contains("Unexpected token")
                                ? "; this Node.js is too old for azurite " + VERSION + " (node --version; ./test"
                                        + " installs a Node 20 into ~/.cache/baton/node-20 where it is older)"
                                : ""));
            }
            if (answersHttp(port)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        "Azurite did not answer on port " + port + " within 30 s" + Posix.tail(logFile, 0));
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException("interrupted while starting Azurite", e);
            }
            pause = Math.min(100, pause * 2);
        }
    }

    /** Sends a bare HTTP request and reads the status line; true on any HTTP answer. */
    static boolean answersHttp(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(FreePort.LOOPBACK, port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /" + ACCOUNT + "?comp=list HTTP/1.1\r\nHost: " + FreePort.LOOPBACK + "\r\n"
                            + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] start = in.readNBytes(5);
            return new String(start, StandardCharsets.US_ASCII).equals("HTTP/");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A URI for Baton's Azure Blob backend on this service and {@code container}: for Azurite {@code
     * azblob://devstoreaccount1/CONTAINER?endpoint=http://127.0.0.1:PORT/devstoreaccount1&accountKey=...};
     * for an external service the URI of {@value #ENV_URI}, unchanged ({@code container} is then
     * ignored).
     *
     * @param container the blob container the backend keeps its lock blobs in
     * @return a URI that {@code Baton.connect} accepts
     */
    public String uri(String container) {
        if (externalUri != null) {
            return externalUri;
        }
        return "azblob://" + ACCOUNT + "/" + container + "?endpoint=" + endpoint() + "&accountKey="
                + URLEncoder.encode(ACCOUNT_KEY, StandardCharsets.UTF_8);
    }

    /**
     * The blob service endpoint.
     *
     * @return for example {@code http://127.0.0.1:41234/devstoreaccount1}
     */
    public String endpoint() {
        if (externalUri != null) {
            return externalEndpoint(externalUri).toString();
        }
        return "http://" + host + ":" + port + "/" + ACCOUNT;
    }

    /** {@return the host the service listens on} */
    public String host() {
        return host;
    }

    /** {@return the port the service listens on} */
    public int port() {
        return port;
    }

    /** {@return whether {@value #ENV_URI} named an external service, so nothing was started} */
    public boolean external() {
        return externalUri != null;
    }

    /** {@return the pid of the Azurite process, or -1 for an external service} */
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /**
     * Stops Azurite with SIGTERM (it saves its state and exits) and starts it again on the same port,
     * returning once it answers: a restart of the service that keeps its blobs (but not their leases)
     * when it was started with {@link #startPersistent()} (from {@link #start()}, in memory, it comes
     * back empty).
     *
     * @throws IllegalStateException for an external service, or if it does not come back within 30 s
     */
    public synchronized void restart() {
        if (external() || closed.get()) {
            throw new IllegalStateException("cannot restart " + this);
        }
        stop(10);
        try {
            Process started = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
            process = started;
            if (!awaitReady(started, port, logFile)) {
                throw new IllegalStateException(
                        "Azurite could not bind its port " + port + " again after a restart" + Posix.tail(logFile, 0));
            }
            log.info("restarted Azurite (pid {}) at {}", started.pid(), endpoint());
        } catch (IOException e) {
            throw new IllegalStateException("could not restart Azurite: " + e, e);
        }
    }

    /** {@return whether the Azurite process runs} */
    public boolean isRunning() {
        return process != null && process.isAlive();
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
        stop(10);
        Posix.deleteRecursively(dir);
        log.info("stopped Azurite on port {}", port);
    }

    private void stopOnJvmExit() {
        if (closed.compareAndSet(false, true)) {
            stop(5);
            Posix.deleteRecursively(dir);
        }
    }

    private void stop(long timeoutSeconds) {
        Process process = this.process;
        if (!process.isAlive()) {
            return;
        }
        Posix.signal(process.pid(), "CONT"); // in case a fault test left it stopped
        process.destroy(); // SIGTERM to the node process itself (azurite-blob runs in place, no wrapper)
        try {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                log.warn("Azurite (pid {}) did not exit within {} s after SIGTERM; killing it", pid(), timeoutSeconds);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Hides an account key or SAS signature in a URI, so that logs never print it. */
    static String redact(String uri) {
        return uri.replaceAll("(?i)((?:accountkey|sig|sas|connectionstring)=)[^&]*", "$1***");
    }

    @Override
    public String toString() {
        return "AzuriteServer[" + (external() ? redact(externalUri) + ", external" : endpoint() + ", pid " + pid())
                + "]";
    }
}
