package dev.baton;

import dev.baton.internal.Clients;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Entry point: connects to a lock backend by URI.
 *
 * <pre>{@code
 * try (LockClient client = Baton.connect("jdbc:postgresql://db:5432/app?user=app&password=secret")) {
 *     try (Lease lease = client.lock("invoice-42").acquire(Duration.ofSeconds(5))) {
 *         store.write(data, lease.fencingToken());
 *     }
 * }
 * }</pre>
 *
 * <p>Backends are discovered with {@link ServiceLoader} by URI scheme; add the backend's module
 * (for example {@code dev.baton:baton-jdbc}) to the class path.
 */
public final class Baton {

    /** Which module serves which scheme, to name the missing module in errors. */
    private static final Map<String, String> KNOWN_SCHEMES = Map.ofEntries(
            Map.entry("jdbc:h2", "baton-jdbc"),
            Map.entry("jdbc:postgresql", "baton-jdbc"),
            Map.entry("jdbc:mariadb", "baton-jdbc"),
            Map.entry("redis", "baton-redis"),
            Map.entry("rediss", "baton-redis"),
            Map.entry("redis-sentinel", "baton-redis"),
            Map.entry("redis-cluster", "baton-redis"),
            Map.entry("rediss-cluster", "baton-redis"),
            Map.entry("redlock", "baton-redis"),
            Map.entry("zookeeper", "baton-zookeeper"),
            Map.entry("etcd", "baton-etcd"),
            Map.entry("etcds", "baton-etcd"),
            Map.entry("azblob", "baton-azure"),
            Map.entry("mem", "baton-test"));

    private Baton() {}

    /**
     * Connects with {@link LockOptions#defaults()}.
     *
     * @param uri the backend's URI, such as {@code jdbc:postgresql://host:5432/db} or {@code
     *     redis://host:6379}; its scheme picks the backend module
     * @return a client that the caller closes; closing it releases every lease it still holds
     * @throws LockConfigurationException as {@link #connect(String, LockOptions)}
     * @throws LockUnavailableException as {@link #connect(String, LockOptions)}
     */
    public static LockClient connect(String uri) {
        return connect(uri, LockOptions.defaults());
    }

    /**
     * Connects to the backend that serves the URI's scheme.
     *
     * <p>Besides the backend's own options, every URI takes {@code clientName=<name>} (sets {@link
     * LockOptions#clientName()}) and {@code fair=false} (turns {@link LockOptions#fair()} off); the core
     * reads them into the client's options, which {@link LockClient#options()} then reports, and no
     * backend or driver sees them. Every option the URI names is checked when the client is built: an
     * unknown or misspelt one fails here, with the nearest name the URI takes.
     *
     * @param uri the backend's URI, such as {@code jdbc:postgresql://host:5432/db} or {@code
     *     redis://host:6379}; its scheme picks the backend module found on the class path
     * @param options lease time, renewal, timeouts and listeners for every lock of the client
     * @return a client that the caller closes; closing it releases every lease it still holds
     * @throws LockConfigurationException if the URI is malformed, names an unknown option or a bad
     *     value, its scheme is unknown, or the module that serves it is not on the class path (the
     *     message names the module to add)
     * @throws LockUnavailableException if the backend cannot be reached at once (most backends
     *     connect lazily and report this on first use instead)
     */
    public static LockClient connect(String uri, LockOptions options) {
        LockOptions named = CommonUriOptions.apply(uri, options);
        return open(backend(uri, named), named);
    }

    /**
     * An operator's view of the backend behind a URI, with {@link LockOptions#defaults()}: list who
     * holds what, break a stuck lock. See {@link LockAdmin}.
     *
     * @param uri the backend's URI, as for {@link #connect(String, LockOptions)}
     * @return a new admin; the caller closes it
     * @throws LockConfigurationException as {@link #connect(String, LockOptions)}
     */
    public static LockAdmin admin(String uri) {
        return admin(uri, LockOptions.defaults());
    }

    /**
     * An operator's view of the backend behind a URI. See {@link LockAdmin}.
     *
     * @param uri the backend's URI, as for {@link #connect(String, LockOptions)}
     * @param options the options the backend is made with (its operation timeout bounds every call;
     *     its client name is logged with forced releases)
     * @return a new admin; the caller closes it
     * @throws LockConfigurationException as {@link #connect(String, LockOptions)}
     */
    public static LockAdmin admin(String uri, LockOptions options) {
        LockOptions named = CommonUriOptions.apply(uri, options);
        return Clients.admin(backend(uri, named), named);
    }

    /**
     * The backend behind a URI, without a client around it: for tools that inspect locks ({@link
     * LockBackend#inspect}) rather than take them. The caller closes it.
     *
     * @param uri the backend's URI, as for {@link #connect(String, LockOptions)}
     * @param options the options the backend is configured with (timeouts, for instance)
     * @return a new backend, not yet connected for most schemes; the caller owns and closes it
     * @throws LockConfigurationException as {@link #connect(String, LockOptions)}
     */
    public static LockBackend backend(String uri, LockOptions options) {
        if (uri == null || uri.isBlank()) {
            throw new LockConfigurationException(
                    "Baton.connect: the URI is empty; give one such as jdbc:postgresql://host:5432/db");
        }
        if (options == null) {
            throw new LockConfigurationException(
                    "Baton.connect(" + uri + "): options must not be null; use LockOptions.defaults()");
        }
        options = CommonUriOptions.apply(uri, options);
        uri = CommonUriOptions.strip(uri);
        String scheme = schemeOf(uri);
        List<String> available = new ArrayList<>();
        for (LockBackendProvider provider :
                ServiceLoader.load(LockBackendProvider.class, Baton.class.getClassLoader())) {
            for (String accepted : provider.schemes()) {
                available.add(accepted);
                if (accepted.equalsIgnoreCase(scheme)) {
                    return provider.create(uri, options);
                }
            }
        }
        if (scheme.equals("jdbc:mysql")) {
            throw new LockConfigurationException("Baton.connect(" + redact(uri) + "): Baton JDBC reaches MySQL and"
                    + " MariaDB through the MariaDB driver; write the URL as jdbc:mariadb://host:3306/db and add"
                    + " org.mariadb.jdbc:mariadb-java-client"
                    + (available.contains("jdbc:mariadb") ? "" : " and dev.baton:baton-jdbc"));
        }
        String module = KNOWN_SCHEMES.get(scheme);
        if (module != null) {
            throw new LockConfigurationException("Baton.connect(" + redact(uri) + "): no backend for scheme '" + scheme
                    + "' on the class path; add the dependency dev.baton:" + module);
        }
        throw new LockConfigurationException("Baton.connect(" + redact(uri) + "): unknown scheme '" + scheme
                + "'; schemes on the class path: " + available + ", schemes Baton knows: "
                + KNOWN_SCHEMES.keySet().stream().sorted().toList());
    }

    /**
     * Wraps a backend built directly (for example from an application's {@code DataSource}) in a
     * client. The client owns the backend and closes it.
     *
     * @param backend the backend the client's locks live in; the client takes ownership of it
     * @param options lease time, renewal, timeouts and listeners for every lock of the client
     * @return a client that the caller closes; closing it releases its leases and closes {@code
     *     backend}
     * @throws LockConfigurationException if {@code backend} or {@code options} is null
     */
    public static LockClient open(LockBackend backend, LockOptions options) {
        if (backend == null || options == null) {
            throw new LockConfigurationException("Baton.open: backend and options must not be null");
        }
        return Clients.open(backend, options);
    }

    static String schemeOf(String uri) {
        String lower = uri.trim().toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:")) {
            int end = lower.indexOf(':', 5);
            return end < 0 ? lower : lower.substring(0, end);
        }
        int end = lower.indexOf(':');
        if (end <= 0) {
            throw new LockConfigurationException("Baton.connect(" + redact(uri)
                    + "): the URI has no scheme; give one such as redis://host:6379 or jdbc:postgresql://host/db");
        }
        return lower.substring(0, end);
    }

    /** Hides a password in a URI so that messages never print it. */
    static String redact(String uri) {
        return uri.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("://([^/@:]*):[^/@]*@", "://$1:***@");
    }
}
