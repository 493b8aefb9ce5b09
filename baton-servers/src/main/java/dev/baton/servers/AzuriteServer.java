package dev.baton.servers;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
public final class AzuriteServer extends ManagedServer {
    private static final Logger log = LoggerFactory.getLogger(AzuriteServer.class);

    /** An {@code azblob://} URI of an external account or emulator to use instead of starting Azurite. */
    public static final String ENV_URI = "BATON_AZURE_URI";
    /** The path of an {@code azurite-blob} program to start instead of the one found by default. */
    public static final String ENV_BIN = "BATON_AZURITE_BIN";
    /** The azurite release {@code ./test} installs: the newest that runs on Node 20. */
    public static final String VERSION = "3.35.0";

    /**
     * The operation timeout a client of this emulator needs on an idle machine: Azurite answers
     * every request on one Node.js thread, so a request waits behind every other client's, and its
     * first requests run before Node's JIT has compiled anything. Tests stretch it further on a busy
     * machine (the conformance kit's {@code KitTime.operationTimeout(Duration)}).
     */
    public static final Duration CLIENT_OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /** Azurite's well-known development account (public, documented by Microsoft). */
    public static final String ACCOUNT = "devstoreaccount1";
    /** The well-known key of {@link #ACCOUNT} (public, documented by Microsoft). */
    public static final String ACCOUNT_KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private static final int START_ATTEMPTS = 5;
    private static final Duration RESTART_PORT_WAIT = Duration.ofSeconds(10);

    private final String externalUri; // null when embedded
    private final String host;
    private final int port;

    private AzuriteServer(String externalUri, String host, int port) {
        super(ManagedProcess.external("the external Azure Blob service named by " + ENV_URI));
        this.externalUri = externalUri;
        this.host = host;
        this.port = port;
    }

    private AzuriteServer(int port, ManagedProcess process) {
        super(process);
        this.externalUri = null;
        this.host = FreePort.LOOPBACK;
        this.port = port;
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
     * Not their leases: Azurite 3.35.0 comes back from a restart with every lease expired (another
     * lease id can take a blob leased just before the restart), where Azure keeps them.
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
        Path dir = Posix.createTempDirectory("baton-azurite-");
        ManagedProcess process = ManagedProcess.builder("Azurite", dir.resolve("azurite.log"))
                .customize(builder -> builder.directory(dir.toFile()))
                .portTakenWhen("EADDRINUSE")
                .exitHint(AzuriteServer::nodeTooOld)
                .deleteOnClose(dir)
                .build();
        int port = process.closeOnFailure(() -> process.startOnFreePort(
                FreePort::find, START_ATTEMPTS, p -> command(program, dir, p, persistent), AzuriteServer::answersHttp));
        AzuriteServer server = new AzuriteServer(port, process);
        log.info("started Azurite {} blob service (pid {}) at {}", VERSION, process.pid(), server.endpoint());
        return server;
    }

    private static List<String> command(List<String> program, Path dir, int port, boolean persistent) {
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
        command.addAll(List.of("--skipApiVersionCheck", "--disableProductStyleUrl", "--disableTelemetry", "--silent"));
        return command;
    }

    private static String nodeTooOld(String tail) {
        return tail.contains("SyntaxError") || tail.contains("Unexpected token")
                ? "; this Node.js is too old for azurite " + VERSION + " (node --version; ./test installs a Node 20"
                        + " into ~/.cache/baton/node-20 where it is older)"
                : "";
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

    /** Sends a bare HTTP request and reads the status line; true on any HTTP answer. */
    static boolean answersHttp(int port) {
        byte[] reply = FreePort.exchange(
                port,
                "GET /" + ACCOUNT + "?comp=list HTTP/1.1\r\nHost: " + FreePort.LOOPBACK
                        + "\r\nConnection: close\r\n\r\n",
                5,
                2000);
        return reply != null && new String(reply, StandardCharsets.US_ASCII).equals("HTTP/");
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

    /**
     * Stops Azurite with SIGTERM (it saves its state and exits) and starts it again on the same port,
     * returning once it answers: a restart of the service that keeps its blobs (but not their leases)
     * when it was started with {@link #startPersistent()} (from {@link #start()}, in memory, it comes
     * back empty).
     *
     * @throws IllegalStateException for an external service, or if it does not come back within 30 s
     */
    public void restart() {
        process.restart(true, RESTART_PORT_WAIT);
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
