package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.UriOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A JDBC URL with Baton's own options taken out and checked, by the rules in {@code
 * docs/backends/jdbc.md}; the rest of the URL goes to the driver untouched ({@code driverUrl}).
 */
record LockUrl(
        String driverUrl,
        Dialect dialect,
        Strategy strategy,
        TableNames tables,
        boolean createSchema,
        boolean advisoryHolders) {
    private static final String STRATEGY = "strategy";
    private static final String TABLE = "table";
    private static final String CREATE_SCHEMA = "createSchema";
    private static final String ADVISORY_HOLDERS = "advisoryHolders";
    private static final List<String> OPTIONS = List.of(STRATEGY, TABLE, CREATE_SCHEMA, ADVISORY_HOLDERS);

    private static final Map<Dialect, Set<String>> DRIVER_PARAMETERS = new ConcurrentHashMap<>();

    /** Does no I/O; a bad option fails with a {@link LockConfigurationException} naming what it takes. */
    static LockUrl parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new LockConfigurationException("Baton JDBC: the JDBC URL is empty; give one such as"
                    + " jdbc:postgresql://host:5432/db or jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1");
        }
        String trimmed = uri.strip();
        Dialect dialect = Dialect.ofUrl(trimmed)
                .orElseThrow(() -> new LockConfigurationException("Baton JDBC: " + JdbcFailures.redact(trimmed)
                        + " is not a URL of a supported database; Baton JDBC supports jdbc:h2,"
                        + " jdbc:postgresql and jdbc:mariadb"));
        String where = "Baton JDBC URL " + JdbcFailures.redact(trimmed);
        Map<String, String> baton = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        Set<String> driverKnows = driverParameters(dialect);
        String driverUrl = dialect == Dialect.H2
                ? stripH2(trimmed, baton, driverKnows, where)
                : stripQuery(trimmed, baton, driverKnows, where);

        Strategy strategy = Strategy.of(baton.getOrDefault(STRATEGY, Strategy.TABLE.key()), where);
        strategy.require(dialect, where);
        TableNames tables;
        try {
            tables = TableNames.of(baton.getOrDefault(TABLE, TableNames.DEFAULT_TABLE));
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException(where + ": " + e.getMessage().replaceFirst("^Baton JDBC: ", ""), e);
        }
        return new LockUrl(
                driverUrl,
                dialect,
                strategy,
                tables,
                bool(baton, CREATE_SCHEMA, true, where, ""),
                bool(baton, ADVISORY_HOLDERS, false, where, " (true records advisory holders for baton locks)"));
    }

    private static boolean bool(Map<String, String> baton, String option, boolean absent, String where, String hint) {
        String value = baton.get(option);
        if (value == null) {
            return absent;
        }
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new LockConfigurationException(
                where + ": " + option + " must be true or false but was '" + value + "'" + hint);
    }

    /** {@code jdbc:h2:<db>;KEY=value;...}; a backslash escapes a semicolon inside a value. */
    private static String stripH2(String url, Map<String, String> baton, Set<String> driverKnows, String where) {
        List<String> kept = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= url.length(); i++) {
            boolean end = i == url.length();
            if (end || (url.charAt(i) == ';' && (i == 0 || url.charAt(i - 1) != '\\'))) {
                String part = url.substring(start, i);
                if (kept.isEmpty()) {
                    refuseQuery(part, where);
                    kept.add(part);
                } else if (!take(part, false, baton, driverKnows, where)) {
                    kept.add(part);
                }
                start = i + 1;
            }
        }
        return String.join(";", kept);
    }

    /** H2 reads everything before the first {@code ;} as the database, so {@code ?k=v} would name a file. */
    private static void refuseQuery(String database, String where) {
        int question = database.indexOf('?');
        if (question >= 0) {
            String query = database.substring(question);
            throw new LockConfigurationException(where + ": H2 URLs take settings and Baton's options after ';',"
                    + " not '?' (H2 would make '" + query + "' part of the database's name); write "
                    + database.substring(0, question) + ";" + query.substring(1).replace('&', ';'));
        }
    }

    /** {@code jdbc:postgresql://host/db?key=value&...}, and MariaDB's of the same form. */
    private static String stripQuery(String url, Map<String, String> baton, Set<String> driverKnows, String where) {
        int query = url.indexOf('?');
        if (query < 0) {
            return url;
        }
        List<String> kept = new ArrayList<>();
        for (String part : url.substring(query + 1).split("&", -1)) {
            if (!take(part, true, baton, driverKnows, where)) {
                kept.add(part);
            }
        }
        String base = url.substring(0, query);
        return kept.isEmpty() ? base : base + "?" + String.join("&", kept);
    }

    /** Records {@code part} if it is a Baton option and says so; refuses a misspelt one. */
    private static boolean take(
            String part, boolean urlEncoded, Map<String, String> baton, Set<String> driverKnows, String where) {
        int eq = part.indexOf('=');
        // Baton's names are plain ASCII, so the raw key is compared; only Baton's values are decoded.
        String key = (eq < 0 ? part : part.substring(0, eq)).strip();
        if (key.isEmpty()) {
            return false;
        }
        if (!isBaton(key)) {
            if (!driverKnows.contains(key.toLowerCase(Locale.ROOT))) {
                if (UriOptions.lockOption(key).isPresent()) {
                    throw new LockConfigurationException(where + ": " + UriOptions.unknown(key, OPTIONS));
                }
                if (UriOptions.closest(key, OPTIONS).isPresent()) {
                    throw new LockConfigurationException(where + ": " + UriOptions.unknown(key, OPTIONS)
                            + " (the driver's own parameters pass through as they are)");
                }
            }
            return false;
        }
        String value = eq < 0 ? "" : part.substring(eq + 1).strip();
        if (urlEncoded) {
            value = decode(value, where);
        }
        if (value.isEmpty()) {
            throw new LockConfigurationException(
                    where + ": the option " + key + " has no value; give " + key + "=<value> or leave it out");
        }
        if (isCommon(key)) {
            return true; // read by the core (Baton.connect) before the URL gets here
        }
        if (baton.putIfAbsent(key, value) != null) {
            throw new LockConfigurationException(
                    where + ": the option " + key.toLowerCase(Locale.ROOT) + " is given more than once; keep one");
        }
        return true;
    }

    private static boolean isBaton(String key) {
        return OPTIONS.stream().anyMatch(key::equalsIgnoreCase) || isCommon(key);
    }

    private static boolean isCommon(String key) {
        return UriOptions.COMMON.stream().anyMatch(key::equalsIgnoreCase);
    }

    /** The parameters the dialect's driver lists, lower case; none without the driver, or on H2. */
    static Set<String> driverParameters(Dialect dialect) {
        return DRIVER_PARAMETERS.computeIfAbsent(dialect, LockUrl::askDriver);
    }

    private static Set<String> askDriver(Dialect dialect) {
        Set<String> names = new TreeSet<>();
        try {
            Driver driver = (Driver) Class.forName(dialect.driverClass(), true, LockUrl.class.getClassLoader())
                    .getDeclaredConstructor()
                    .newInstance();
            String sample = dialect == Dialect.H2
                    ? "jdbc:h2:mem:"
                    : "jdbc:" + dialect.name().toLowerCase(Locale.ROOT) + "://localhost/db";
            for (DriverPropertyInfo info : driver.getPropertyInfo(sample, new Properties())) {
                names.add(info.name.toLowerCase(Locale.ROOT));
            }
        } catch (ReflectiveOperationException | LinkageError | java.sql.SQLException | RuntimeException e) {
            // No driver (reported when the backend is built) or one that lists nothing: names close to
            // Baton's are then judged by closeness alone.
            return Set.of();
        }
        return Set.copyOf(names);
    }

    private static String decode(String text, String where) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(where + ": '" + text + "' is not correctly URL-encoded", e);
        }
    }
}
