package dev.baton.redis;

import dev.baton.LockConfigurationException;
import dev.baton.spi.UriOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.internal.HostAndPort;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Parses Baton's Redis URIs: Baton's own query parameters are taken out, the rest goes to Lettuce. */
final class RedisUris {
    static final Set<String> BATON_PARAMS =
            Set.of("prefix", "drift", "driftfactor", "nodetimeout", "tls", "natmap", "topologyrefresh", "waitreplicas");

    /** Baton's options of redis://, rediss:// and redis-sentinel:// URIs, as documented. */
    private static final List<String> NODE_OPTIONS = List.of("prefix", "waitReplicas");

    /** Lettuce's options that Baton passes on, as documented. */
    private static final List<String> LETTUCE_OPTIONS =
            List.of("timeout", "database", "clientName", "libraryName", "libraryVersion", "verifyPeer");

    /** Options of redlock:// URIs, as documented. */
    private static final List<String> REDLOCK_OPTIONS = List.of("prefix", "drift", "driftFactor", "nodeTimeout", "tls");

    /** Options of redis-cluster:// URIs, as documented. */
    private static final List<String> CLUSTER_OPTIONS = List.of("prefix", "natMap", "topologyRefresh", "waitReplicas");

    /** Options of redis://, rediss:// and redis-sentinel:// URIs that Lettuce reads (lower case). */
    static final Set<String> LETTUCE_PARAMS = Set.of(
            "timeout",
            "database",
            "db",
            "sentinelmasterid",
            "clientname",
            "libraryname",
            "libraryversion",
            "verifypeer");

    /** Options of redlock:// URIs only. */
    static final Set<String> REDLOCK_PARAMS = Set.of("drift", "driftfactor", "nodetimeout", "tls");

    /** Options of redis-cluster:// and rediss-cluster:// URIs only. */
    static final Set<String> CLUSTER_PARAMS = Set.of("natmap", "topologyrefresh");

    private RedisUris() {}

    /** A URI split into Baton's parameters and what is left for Lettuce. */
    record Parsed(String scheme, String lettuceUri, Map<String, String> params) {
        String prefix() {
            String prefix = params.getOrDefault("prefix", RedisKeys.DEFAULT_PREFIX);
            if (prefix.contains("{") || prefix.contains("}")) {
                throw new LockConfigurationException("Baton Redis URI: the key prefix '" + prefix
                        + "' must not contain braces, which would break the keys' hash tag; choose another prefix");
            }
            return prefix;
        }
    }

    static Parsed split(String uri) {
        String trimmed = uri.trim();
        int schemeEnd = trimmed.indexOf("://");
        if (schemeEnd <= 0) {
            throw invalid(uri, "it has no scheme");
        }
        String scheme = trimmed.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        String fragment = "";
        int hash = trimmed.indexOf('#');
        String rest = trimmed;
        if (hash >= 0) {
            fragment = trimmed.substring(hash);
            rest = trimmed.substring(0, hash);
        }
        Map<String, String> params = new LinkedHashMap<>();
        List<String> kept = new ArrayList<>();
        int question = rest.indexOf('?');
        String base = rest;
        if (question >= 0) {
            base = rest.substring(0, question);
            for (String pair : rest.substring(question + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = (eq < 0 ? pair : pair.substring(0, eq)).toLowerCase(Locale.ROOT);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                if (BATON_PARAMS.contains(key)) {
                    params.put(key, value);
                } else {
                    kept.add(pair);
                }
            }
        }
        String lettuce = base + (kept.isEmpty() ? "" : "?" + String.join("&", kept)) + fragment;
        return new Parsed(scheme, lettuce, params);
    }

    /**
     * The {@code waitReplicas} option: how many replicas must acknowledge a grant before it counts
     * (see {@link RedisReplicaWait}); {@code absent} when not given.
     */
    static int waitReplicas(String original, Map<String, String> params, int absent) {
        String text = params.get("waitreplicas");
        if (text == null) {
            return absent;
        }
        try {
            int replicas = Integer.parseInt(text.trim());
            if (replicas >= 0) {
                return replicas;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(
                original,
                "waitReplicas='" + text + "' is not a number of replicas; give 0 or more, such as waitReplicas=1"
                        + " (a grant then counts only once that many replicas acknowledged it)");
    }

    /**
     * Refuses query parameters of a {@code redis://}, {@code rediss://} or {@code redis-sentinel://}
     * URI that neither Baton nor Lettuce knows: Lettuce would ignore them silently, and a misspelt
     * safety option must not be.
     */
    static void requireKnownLettuceParams(String original, String scheme, String lettuceUri) {
        int question = lettuceUri.indexOf('?');
        if (question < 0) {
            return;
        }
        int hash = lettuceUri.indexOf('#', question);
        String query = hash < 0 ? lettuceUri.substring(question + 1) : lettuceUri.substring(question + 1, hash);
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = (eq < 0 ? pair : pair.substring(0, eq)).toLowerCase(Locale.ROOT);
            if (pair.isEmpty() || LETTUCE_PARAMS.contains(key)) {
                continue;
            }
            List<String> known = new ArrayList<>(NODE_OPTIONS);
            known.addAll(LETTUCE_OPTIONS);
            throw invalid(
                    original,
                    scheme + ":// URIs: " + UriOptions.unknown(eq < 0 ? pair : pair.substring(0, eq), known)
                            + (key.contains("replica")
                                    ? " (to make a grant wait for replicas, use waitReplicas=N)"
                                    : ""));
        }
    }

    /** Why the first option of {@code query} (what is left after Baton's own) is refused. */
    private static String unknownIn(String query, List<String> known) {
        String pair = query.split("&", -1)[0];
        int eq = pair.indexOf('=');
        return UriOptions.unknown(eq < 0 ? pair : pair.substring(0, eq), known);
    }

    static RedisURI lettuce(String original, String lettuceUri) {
        try {
            RedisURI parsed = RedisURI.create(lettuceUri);
            if (parsed.getSentinels().isEmpty()
                    && (parsed.getHost() == null || parsed.getHost().isEmpty())) {
                throw invalid(original, "it names no host");
            }
            if (!parsed.getSentinels().isEmpty() && parsed.getSentinelMasterId() == null) {
                throw invalid(original, "a redis-sentinel:// URI needs the master's name after '#', as in #mymaster");
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            throw invalid(original, e.getMessage());
        }
    }

    /**
     * Nodes of a {@code redlock://[user:password@]host:port[/db],host:port[/db],...[?...]} URI; a
     * database number belongs to the node it follows (default 0).
     */
    static List<RedisURI> redlockNodes(String original, String lettuceUri, boolean tls) {
        int question = lettuceUri.indexOf('?');
        if (question >= 0) {
            throw invalid(
                    original, "redlock:// URIs: " + unknownIn(lettuceUri.substring(question + 1), REDLOCK_OPTIONS));
        }
        List<RedisURI> nodes = hostList(original, lettuceUri, tls);
        if (nodes.size() < 3) {
            throw invalid(
                    original,
                    "Redlock needs at least 3 independent masters (5 is usual), but it names " + nodes.size());
        }
        return nodes;
    }

    /**
     * Seed nodes of a {@code redis-cluster://[user:password@]host:port,host:port,.../[?...]} URI
     * ({@code rediss-cluster://} for TLS). Any reachable node of the cluster will do as a seed; the
     * client reads the whole topology from the seeds. A cluster has only database 0.
     */
    static List<RedisURI> clusterSeeds(String original, String lettuceUri, boolean tls) {
        int question = lettuceUri.indexOf('?');
        if (question >= 0) {
            throw invalid(
                    original,
                    "redis-cluster:// URIs: " + unknownIn(lettuceUri.substring(question + 1), CLUSTER_OPTIONS));
        }
        List<RedisURI> seeds = hostList(original, lettuceUri, tls);
        if (seeds.isEmpty()) {
            throw invalid(original, "it names no seed node; list one or more nodes of the cluster as host:port");
        }
        for (RedisURI seed : seeds) {
            if (seed.getDatabase() != 0) {
                throw invalid(
                        original,
                        "a Redis Cluster has only database 0, but it names database " + seed.getDatabase()
                                + "; drop the /" + seed.getDatabase() + " or use prefix= to keep applications apart");
            }
        }
        return seeds;
    }

    /**
     * The {@code natMap} option: {@code announcedHost:port>reachableHost:port}, comma-separated.
     * Cluster nodes announce addresses the client may not reach (behind NAT, port forwarding or
     * containers); the client connects to the mapped address instead and keeps the announced one
     * as the node's identity.
     */
    static Map<HostAndPort, HostAndPort> natMap(String original, String text) {
        Map<HostAndPort, HostAndPort> map = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return map;
        }
        for (String entry : text.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int arrow = entry.indexOf('>');
            if (arrow < 0) {
                throw invalid(original, "natMap entry '" + entry + "' is not announcedHost:port>reachableHost:port");
            }
            map.put(
                    hostAndPort(original, entry.substring(0, arrow).trim()),
                    hostAndPort(original, entry.substring(arrow + 1).trim()));
        }
        return map;
    }

    private static HostAndPort hostAndPort(String original, String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw invalid(original, "natMap address '" + text + "' needs host:port");
        }
        try {
            return HostAndPort.of(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw invalid(original, "natMap address '" + text + "' needs host:port with a numeric port");
        }
    }

    /**
     * {@code scheme://[user:password@]host:port[/db],host:port[/db],...} as node URIs; a database
     * number belongs to the node it follows (default 0). The query, if any, is ignored.
     */
    private static List<RedisURI> hostList(String original, String lettuceUri, boolean tls) {
        String body = lettuceUri.substring(lettuceUri.indexOf("://") + 3);
        int query = body.indexOf('?');
        if (query >= 0) {
            body = body.substring(0, query);
        }
        String user = null;
        String password = null;
        int at = body.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = body.substring(0, at);
            body = body.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon >= 0) {
                user = decode(userInfo.substring(0, colon));
                password = decode(userInfo.substring(colon + 1));
            } else {
                password = decode(userInfo);
            }
        }
        List<RedisURI> nodes = new ArrayList<>();
        for (String hostPort : body.split(",")) {
            if (hostPort.isBlank()) {
                continue;
            }
            int database = 0;
            int slash = hostPort.indexOf('/');
            if (slash >= 0) {
                String db = hostPort.substring(slash + 1);
                hostPort = hostPort.substring(0, slash);
                try {
                    database = db.isEmpty() ? 0 : Integer.parseInt(db);
                } catch (NumberFormatException e) {
                    throw invalid(original, "the database '" + db + "' is not a number");
                }
            }
            int colon = hostPort.lastIndexOf(':');
            String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            if (host.isBlank()) {
                throw invalid(original, "'" + hostPort + "' names no host");
            }
            int port = 6379;
            if (colon >= 0) {
                try {
                    port = Integer.parseInt(hostPort.substring(colon + 1));
                } catch (NumberFormatException e) {
                    throw invalid(original, "the port in '" + hostPort + "' is not a number");
                }
            }
            RedisURI.Builder builder = RedisURI.builder()
                    .withHost(host)
                    .withPort(port)
                    .withDatabase(database)
                    .withSsl(tls);
            if (password != null) {
                if (user != null && !user.isEmpty()) {
                    builder.withAuthentication(user, password.toCharArray());
                } else {
                    builder.withPassword(password.toCharArray());
                }
            }
            nodes.add(builder.build());
        }
        return nodes;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    static Duration duration(String original, String option, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            Duration value;
            if (t.endsWith("ms")) {
                value = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                value = Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            } else {
                value = Duration.ofMillis(Long.parseLong(t));
            }
            if (value.isNegative()) {
                throw invalid(original, option + " must not be negative");
            }
            return value;
        } catch (NumberFormatException e) {
            throw invalid(original, option + "='" + text + "' is not a duration such as 50ms or 2s");
        }
    }

    static LockConfigurationException invalid(String uri, String problem) {
        return new LockConfigurationException("Baton Redis URI " + redact(uri) + " is invalid: " + problem
                + "; use redis://[user:password@]host:port[/db], rediss://..., redis-sentinel://host:port#master,"
                + " redis-cluster://host1:port,host2:port or redlock://host1:port,host2:port,host3:port");
    }

    static String redact(String uri) {
        return uri.replaceAll("://([^/@:]*):[^/@]*@", "://$1:***@").replaceAll("://([^/@:]+)@", "://***@");
    }
}
