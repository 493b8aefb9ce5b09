package dev.baton.etcd;

import dev.baton.LockConfigurationException;
import dev.baton.spi.UriOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A parsed {@code etcd://} or {@code etcds://} URI:
 *
 * <pre>
 * etcd[s]://[user:password@]host[:2379][,host[:2379]...][/namespace][?tls=true&amp;ca=ca.pem
 *     &amp;cert=client.pem&amp;key=client-key.pem&amp;root=/baton/locks]
 * </pre>
 *
 * @param endpoints {@code host:port} of every member given (port 2379 when omitted)
 * @param tls whether to connect with TLS: {@code etcds://}, or param {@code tls=true}
 * @param user the user to authenticate as, or null
 * @param password the user's password, or null
 * @param namespace a key prefix in front of every key Baton reads or writes ({@code ""} for none),
 *     from the URI's path, e.g. {@code /billing}
 * @param root the parent of every lock's prefix, inside the namespace (param {@code root}, default
 *     {@code /baton/locks})
 * @param ca PEM file of the certificate authorities to trust (param {@code ca}); null means the
 *     JDK's default trust store
 * @param cert PEM client certificate chain for mutual TLS (param {@code cert}), or null
 * @param key PEM PKCS#8 private key of {@code cert} (param {@code key}), or null
 */
record EtcdUri(
        List<String> endpoints,
        boolean tls,
        String user,
        String password,
        String namespace,
        String root,
        Path ca,
        Path cert,
        Path key) {

    static final String SCHEME = "etcd";
    static final String TLS_SCHEME = "etcds";
    static final int DEFAULT_PORT = 2379;
    private static final Set<String> PARAMS = Set.of("tls", "ca", "cert", "key", "root");

    EtcdUri {
        endpoints = List.copyOf(endpoints);
    }

    static EtcdUri parse(String uri) {
        if (uri == null) {
            throw bad(null, "the URI is null");
        }
        int schemeEnd = uri.indexOf("://");
        String scheme = schemeEnd < 0 ? "" : uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        if (!scheme.equals(SCHEME) && !scheme.equals(TLS_SCHEME)) {
            throw bad(uri, "it must start with etcd:// or etcds://");
        }
        String rest = uri.substring(schemeEnd + 3);
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
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String credentials = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = credentials.indexOf(':');
            if (colon <= 0) {
                throw bad(uri, "credentials must be user:password");
            }
            user = decode(uri, credentials.substring(0, colon));
            password = decode(uri, credentials.substring(colon + 1));
        }
        if (rest.isEmpty()) {
            throw bad(uri, "it names no server; use etcd://host:2379");
        }
        List<String> endpoints = new ArrayList<>();
        for (String server : rest.split(",", -1)) {
            endpoints.add(endpoint(uri, server.trim()));
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (!query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                if (!PARAMS.contains(name)) {
                    throw bad(uri, UriOptions.unknown(name, PARAMS));
                }
                params.put(name, eq < 0 ? "" : decode(uri, pair.substring(eq + 1)));
            }
        }
        boolean tls = scheme.equals(TLS_SCHEME);
        String tlsParam = params.get("tls");
        if (tlsParam != null) {
            switch (tlsParam.toLowerCase(Locale.ROOT)) {
                case "true" -> tls = true;
                case "false" -> {
                    if (scheme.equals(TLS_SCHEME)) {
                        throw bad(uri, "tls=false contradicts etcds://; use etcd:// for plain connections");
                    }
                }
                default -> throw bad(uri, "tls must be true or false, not '" + tlsParam + "'");
            }
        }
        Path ca = file(uri, "ca", params.get("ca"));
        Path cert = file(uri, "cert", params.get("cert"));
        Path key = file(uri, "key", params.get("key"));
        if ((ca != null || cert != null || key != null) && !tls) {
            throw bad(uri, "ca, cert and key need TLS: use etcds:// or add tls=true");
        }
        if ((cert == null) != (key == null)) {
            throw bad(uri, "cert and key go together (a client certificate and its private key)");
        }
        String namespace = decode(uri, stripTrailingSlash(path.equals("/") ? "" : path));
        if (!namespace.isEmpty()) {
            checkPrefix(uri, "namespace", namespace);
        }
        String root = stripTrailingSlash(params.getOrDefault("root", "/baton/locks"));
        checkPrefix(uri, "root", root);
        if (root.equals("/") || root.isEmpty()) {
            throw bad(uri, "root must not be '/'; use a dedicated prefix such as /baton/locks");
        }
        return new EtcdUri(endpoints, tls, user, password, namespace, root, ca, cert, key);
    }

    private static String endpoint(String uri, String server) {
        if (server.isEmpty()) {
            throw bad(uri, "an empty server in the list; use etcd://host1:2379,host2:2379");
        }
        String host = server;
        int port = DEFAULT_PORT;
        int colon = server.lastIndexOf(':');
        if (colon >= 0 && server.indexOf(']') < colon) {
            host = server.substring(0, colon);
            try {
                port = Integer.parseInt(server.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw bad(uri, "server '" + server + "' has an invalid port");
            }
        }
        if (host.isEmpty()) {
            throw bad(uri, "server '" + server + "' has no host");
        }
        return host + ":" + port;
    }

    private static Path file(String uri, String param, String value) {
        if (value == null) {
            return null;
        }
        Path path = Path.of(value);
        if (!Files.isReadable(path)) {
            throw bad(uri, param + " file '" + value + "' does not exist or is not readable");
        }
        return path;
    }

    private static void checkPrefix(String uri, String what, String prefix) {
        if (!prefix.startsWith("/") || prefix.contains("//")) {
            throw bad(uri, what + " '" + prefix + "' must be an absolute prefix like /baton/locks");
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.isISOControl(prefix.charAt(i))) {
                throw bad(uri, what + " '" + prefix + "' contains a control character");
            }
        }
    }

    private static String stripTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static String decode(String uri, String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad(uri, "'" + text + "' is not valid percent-encoding");
        }
    }

    private static LockConfigurationException bad(String uri, String why) {
        return new LockConfigurationException("Baton etcd backend: invalid URI '" + redact(uri) + "': " + why
                + ". Expected etcd[s]://[user:password@]host:2379[,host:2379][/namespace]"
                + "[?tls=true&ca=ca.pem&cert=client.pem&key=client-key.pem&root=/baton/locks]");
    }

    /** Hides the password in messages. */
    static String redact(String uri) {
        if (uri == null) {
            return "null";
        }
        return uri.replaceAll("://([^/@:]*):[^/@]*@", "://$1:***@");
    }

    /** {@code etcd (host:2379,host:2379/namespace)}: the backend's name in messages. */
    String describe() {
        return "etcd (" + String.join(",", endpoints) + namespace + ")";
    }

    @Override
    public String toString() {
        return "EtcdUri[" + (tls ? "etcds://" : "etcd://") + (user == null ? "" : user + ":***@")
                + String.join(",", endpoints) + namespace + ", root " + root + "]";
    }
}
