package dev.baton.spring;

import dev.baton.LockConfigurationException;
import dev.baton.spi.UriOptions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Adds the backend options of the {@code baton.jdbc.*}, {@code baton.redis.*}, ... properties to
 * {@code baton.uri}, in the URI's own syntax ({@link UriOptions#with}), so that the backend checks them exactly as if they were written in the URI. A group set
 * for another backend than the URI's, or an option given both ways, fails startup naming the property.
 */
final class BackendUriOptions {
    /** One option set by a property. */
    record Option(String property, String name, String value) {}

    private BackendUriOptions() {}

    /** Adds {@code value} as the option {@code name} when it is set; durations in milliseconds. */
    static void add(List<Option> options, String property, String name, Object value) {
        if (value == null || (value instanceof String text && text.isBlank())) {
            return;
        }
        String text = value instanceof Duration duration ? duration.toMillis() + "ms" : value.toString();
        options.add(new Option(property, name, text.strip()));
    }

    /**
     * {@code uri} with the options of the group that serves it.
     *
     * @throws LockConfigurationException naming the property, if a group for another backend is set or
     *     an option is also in the URI
     */
    static String apply(String uri, BatonProperties properties) {
        String scheme = scheme(uri);
        Map<String, List<Option>> groups = Map.of(
                "jdbc", properties.getJdbc().options(),
                "redis", properties.getRedis().options(),
                "zookeeper", properties.getZookeeper().options(),
                "etcd", properties.getEtcd().options(),
                "azure", properties.getAzure().options());
        String own = backendOf(scheme);
        if (own == null) {
            return uri; // a scheme Baton does not know: the connect says which ones it does
        }
        String result = uri;
        for (Map.Entry<String, List<Option>> group : groups.entrySet()) {
            List<Option> options = group.getValue();
            if (options.isEmpty()) {
                continue;
            }
            if (!group.getKey().equals(own)) {
                throw new LockConfigurationException(
                        "Baton: the property " + options.get(0).property()
                                + " is set, but baton.uri is a " + scheme + " URI, not a " + group.getKey()
                                + " one; remove the baton." + group.getKey() + ".* properties or point baton.uri at "
                                + group.getKey());
            }
            for (Option option : options) {
                if (UriOptions.has(result, option.name())) {
                    throw new LockConfigurationException("Baton: the option " + option.name() + " is set both in"
                            + " baton.uri and as the property " + option.property() + "; keep one");
                }
                result = UriOptions.with(result, option.name(), option.value());
            }
        }
        return result;
    }

    /** The backend group of a scheme, {@code null} when Baton does not know it (the connect says so). */
    private static String backendOf(String scheme) {
        if (scheme.startsWith("jdbc:")) {
            return "jdbc";
        }
        if (scheme.startsWith("redis") || scheme.equals("rediss") || scheme.equals("redlock")) {
            return "redis";
        }
        if (scheme.equals("zookeeper")) {
            return "zookeeper";
        }
        if (scheme.equals("etcd") || scheme.equals("etcds")) {
            return "etcd";
        }
        return scheme.equals("azblob") ? "azure" : null;
    }

    private static String scheme(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:")) {
            int end = lower.indexOf(':', 5);
            return end < 0 ? lower : lower.substring(0, end);
        }
        int end = lower.indexOf("://");
        return end < 0 ? lower : lower.substring(0, end);
    }
}
