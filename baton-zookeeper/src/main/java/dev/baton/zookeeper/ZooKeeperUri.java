package dev.baton.zookeeper;

import dev.baton.LockConfigurationException;
import dev.baton.spi.UriOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A parsed {@code zookeeper://} URI:
 *
 * <pre>
 * zookeeper://[user:password@]host1:2181,host2:2181[/chroot][?param=value&amp;...]
 * </pre>
 *
 * @param connectString {@code host:port,...} as the ZooKeeper client takes it
 * @param chroot the chroot path ({@code ""} for none), applied by the ZooKeeper client
 * @param root the parent of every lock path, inside the chroot (param {@code root}, default {@code
 *     /baton/locks})
 * @param sessionTimeout param {@code sessionTimeout} (default 30 s); the server clamps it to 2..20
 *     ticks
 * @param connectionTimeout param {@code connectionTimeout}; null means the operation timeout
 * @param waitForReconnect param {@code onSuspended}: {@code lose} (default, a disconnection reports
 *     the lease lost at once) or {@code wait} (held leases survive a disconnection that ends with
 *     RECONNECTED within the session timeout)
 * @param digest {@code user:password} for digest authentication, or null
 * @param creatorOnlyAcl param {@code acl}: {@code creator} (default when credentials are given: the
 *     nodes Baton creates are readable and writable only by the authenticated user) or {@code open}
 */
record ZooKeeperUri(
        String connectString,
        String chroot,
        String root,
        Duration sessionTimeout,
        Duration connectionTimeout,
        boolean waitForReconnect,
        String digest,
        boolean creatorOnlyAcl) {

    static final String SCHEME = "zookeeper";
    private static final Set<String> PARAMS =
            Set.of("root", "sessionTimeout", "connectionTimeout", "onSuspended", "acl");
    /** A parameter of earlier versions, refused with what replaced it. */
    private static final String REMOVED_EXCLUSIVE_NODES = "exclusiveNodes";

    static ZooKeeperUri parse(String uri) {
        if (uri == null) {
            throw bad(null, "the URI is null");
        }
        String prefix = SCHEME + "://";
        if (!uri.regionMatches(true, 0, prefix, 0, prefix.length())) {
            throw bad(uri, "it must start with " + prefix);
        }
        String rest = uri.substring(prefix.length());
        String query = "";
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        String path = "";
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            path = rest.substring(slash);
            rest = rest.substring(0, slash);
        }
        String digest = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            digest = decode(uri, rest.substring(0, at));
            rest = rest.substring(at + 1);
            if (!digest.contains(":") || digest.startsWith(":")) {
                throw bad(uri, "credentials must be user:password");
            }
        }
        if (rest.isEmpty()) {
            throw bad(uri, "it names no server; use zookeeper://host:2181");
        }
        for (String server : rest.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            if (server.isBlank() || colon == 0) {
                throw bad(uri, "server '" + server + "' must be host or host:port");
            }
            if (colon > 0) {
                try {
                    int port = Integer.parseInt(server.substring(colon + 1));
                    if (port < 1 || port > 65535) {
                        throw new NumberFormatException();
                    }
                } catch (NumberFormatException e) {
                    throw bad(uri, "server '" + server + "' has an invalid port");
                }
            }
        }
        String chroot = path.equals("/") ? "" : stripTrailingSlash(path);
        if (!chroot.isEmpty()) {
            validatePath(uri, "chroot", chroot);
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (!query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : decode(uri, pair.substring(eq + 1));
                if (key.equals(REMOVED_EXCLUSIVE_NODES)) {
                    throw bad(
                            uri,
                            "exclusiveNodes is gone: the nodes now follow the kind of lock asked for"
                                    + " (lock(name): Curator mutex nodes; readWriteLock(name): Curator read/write nodes);"
                                    + " remove the parameter");
                }
                if (!PARAMS.contains(key)) {
                    throw bad(uri, UriOptions.unknown(key, PARAMS));
                }
                params.put(key, value);
            }
        }
        String root = stripTrailingSlash(params.getOrDefault("root", "/baton/locks"));
        validatePath(uri, "root", root);
        if (root.equals("/") || root.isEmpty()) {
            throw bad(uri, "root must not be '/'; use a dedicated path such as /baton/locks");
        }
        Duration session = duration(uri, "sessionTimeout", params.get("sessionTimeout"), Duration.ofSeconds(30));
        Duration connection = duration(uri, "connectionTimeout", params.get("connectionTimeout"), null);
        String onSuspended = params.getOrDefault("onSuspended", "lose").toLowerCase(Locale.ROOT);
        if (!onSuspended.equals("lose") && !onSuspended.equals("wait")) {
            throw bad(uri, "onSuspended must be 'lose' or 'wait', not '" + onSuspended + "'");
        }
        String acl =
                params.getOrDefault("acl", digest == null ? "open" : "creator").toLowerCase(Locale.ROOT);
        if (!acl.equals("open") && !acl.equals("creator")) {
            throw bad(uri, "acl must be 'open' or 'creator', not '" + acl + "'");
        }
        if (acl.equals("creator") && digest == null) {
            throw bad(uri, "acl=creator needs credentials: zookeeper://user:password@host:2181");
        }
        return new ZooKeeperUri(
                rest, chroot, root, session, connection, onSuspended.equals("wait"), digest, acl.equals("creator"));
    }

    /** The connect string with the chroot, as the ZooKeeper client takes it. */
    String connectStringWithChroot() {
        return connectString + chroot;
    }

    private static String stripTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static void validatePath(String uri, String what, String path) {
        if (!path.startsWith("/") || path.contains("//")) {
            throw bad(uri, what + " '" + path + "' must be an absolute path like /baton/locks");
        }
        for (String segment : path.substring(1).split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                throw bad(uri, what + " '" + path + "' must not contain '.' or '..'");
            }
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0) {
                    throw bad(uri, what + " '" + path + "' contains a character ZooKeeper refuses");
                }
            }
        }
    }

    private static Duration duration(String uri, String key, String value, Duration fallback) {
        if (value == null) {
            return fallback;
        }
        String text = value.trim().toLowerCase(Locale.ROOT);
        try {
            Duration parsed;
            if (text.endsWith("ms")) {
                parsed = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            } else if (text.endsWith("s")) {
                parsed = Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
            } else {
                parsed = Duration.ofMillis(Long.parseLong(text));
            }
            if (parsed.isNegative() || parsed.isZero()) {
                throw bad(uri, key + " must be positive, not '" + value + "'");
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw bad(uri, key + " must be a duration like 3s, 2500ms or 2500 (milliseconds), not '" + value + "'");
        }
    }

    private static String decode(String uri, String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad(uri, "'" + text + "' is not valid percent-encoding");
        }
    }

    private static LockConfigurationException bad(String uri, String why) {
        return new LockConfigurationException("Baton ZooKeeper backend: invalid URI '" + redact(uri) + "': " + why
                + ". Expected zookeeper://[user:password@]host:2181[,host:2181][/chroot]"
                + "[?sessionTimeout=30s&connectionTimeout=5s&onSuspended=lose|wait&acl=open|creator"
                + "&root=/baton/locks]");
    }

    /** Hides the password in messages. */
    static String redact(String uri) {
        if (uri == null) {
            return "null";
        }
        int scheme = uri.indexOf("://");
        int at = uri.indexOf('@');
        int slash = uri.indexOf('/', scheme < 0 ? 0 : scheme + 3);
        if (scheme < 0 || at < 0 || (slash >= 0 && at > slash)) {
            return uri;
        }
        int colon = uri.indexOf(':', scheme + 3);
        if (colon < 0 || colon > at) {
            return uri;
        }
        return uri.substring(0, colon + 1) + "***" + uri.substring(at);
    }

    @Override
    public String toString() {
        return "ZooKeeperUri[" + connectString + chroot + ", root " + root + ", session " + sessionTimeout + "]";
    }
}
