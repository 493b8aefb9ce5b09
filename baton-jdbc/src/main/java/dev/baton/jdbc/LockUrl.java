package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A JDBC URL with Baton's own parameters taken out. The driver would reject (H2) or ignore
 * (PostgreSQL) them, so they are removed and the rest of the URL is passed on untouched.
 *
 * <ul>
 *   <li>PostgreSQL and MariaDB: query parameters, {@code jdbc:postgresql://host/db?user=u&table=app_locks}
 *   <li>H2: settings, {@code jdbc:h2:mem:test;DB_CLOSE_DELAY=-1;table=app_locks}
 * </ul>
 *
 * <p>Parameter names are compared case-insensitively, as H2 does with its own settings.
 *
 * @param driverUrl the URL for the JDBC driver, without Baton's parameters
 * @param dialect the database, from the URL's sub-protocol
 * @param strategy the locking strategy ({@code strategy}, default {@code table}), supported by the
 *     dialect
 * @param tables the table names ({@code table}, default {@code baton_locks})
 * @param createSchema whether missing tables are created on first use ({@code createSchema},
 *     default {@code true})
 * @param fair whether the table and optimistic strategies hand a released lock to the longest
 *     waiting acquisition before a re-acquire by the releasing client ({@code fair}, default {@code
 *     true}); {@code false} allows barging, see the module README
 * @param advisoryHolders whether the PostgreSQL advisory strategy records each grant's holder in its
 *     holders table, so that {@code baton locks} can name and break its locks ({@code
 *     advisoryHolders}, default {@code false}: the row write per acquire and unlock doubles the
 *     server's work per pair); the other strategies record holders in the row they write anyway
 */
record LockUrl(
        String driverUrl,
        Dialect dialect,
        Strategy strategy,
        TableNames tables,
        boolean createSchema,
        boolean fair,
        boolean advisoryHolders) {
    static final String STRATEGY = "strategy";
    static final String TABLE = "table";
    static final String CREATE_SCHEMA = "createSchema";
    static final String FAIR = "fair";
    static final String ADVISORY_HOLDERS = "advisoryHolders";
    static final String TABLE_STRATEGY = "table";

    /**
     * Parses a Baton JDBC URL.
     *
     * @throws LockConfigurationException for a URL that is not H2, PostgreSQL or MariaDB, an unknown strategy
     *     or one that does not support the database, an invalid table name or createSchema value, or a Baton parameter given twice
     */
    static LockUrl parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new LockConfigurationException("Baton JDBC: the JDBC URL is empty; give one such as"
                    + " jdbc:postgresql://host:5432/db or jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1");
        }
        String trimmed = uri.strip();
        Dialect dialect = Dialect.ofUrl(trimmed)
                .orElseThrow(() -> new LockConfigurationException("Baton JDBC: " + redact(trimmed)
                        + " is not a URL of a supported database; Baton JDBC supports jdbc:h2,"
                        + " jdbc:postgresql and jdbc:mariadb"));
        Map<String, String> baton = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        String driverUrl = dialect == Dialect.H2 ? stripH2(trimmed, baton) : stripPostgres(trimmed, baton);

        String where = "Baton JDBC URL " + redact(trimmed);
        Strategy strategy = Strategy.of(baton.getOrDefault(STRATEGY, TABLE_STRATEGY), where);
        strategy.require(dialect, where);
        TableNames tables;
        try {
            tables = TableNames.of(baton.getOrDefault(TABLE, TableNames.DEFAULT_TABLE));
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException(
                    "Baton JDBC URL " + redact(trimmed) + ": " + e.getMessage().replaceFirst("^Baton JDBC: ", ""), e);
        }
        String create = baton.getOrDefault(CREATE_SCHEMA, "true");
        if (!create.equalsIgnoreCase("true") && !create.equalsIgnoreCase("false")) {
            throw new LockConfigurationException("Baton JDBC URL " + redact(trimmed) + ": createSchema must be"
                    + " true or false but was '" + create + "'");
        }
        String fair = baton.getOrDefault(FAIR, "true");
        if (!fair.equalsIgnoreCase("true") && !fair.equalsIgnoreCase("false")) {
            throw new LockConfigurationException("Baton JDBC URL " + redact(trimmed) + ": fair must be true or"
                    + " false but was '" + fair + "' (false lets a releasing client take the lock straight back,"
                    + " which can starve other clients' waiters)");
        }
        String holders = baton.getOrDefault(ADVISORY_HOLDERS, "false");
        if (!holders.equalsIgnoreCase("true") && !holders.equalsIgnoreCase("false")) {
            throw new LockConfigurationException("Baton JDBC URL " + redact(trimmed) + ": advisoryHolders must be"
                    + " true or false but was '" + holders + "'");
        }
        return new LockUrl(
                driverUrl,
                dialect,
                strategy,
                tables,
                Boolean.parseBoolean(create),
                Boolean.parseBoolean(fair),
                Boolean.parseBoolean(holders));
    }

    private static boolean isBaton(String key) {
        return key.equalsIgnoreCase(STRATEGY)
                || key.equalsIgnoreCase(TABLE)
                || key.equalsIgnoreCase(CREATE_SCHEMA)
                || key.equalsIgnoreCase(FAIR)
                || key.equalsIgnoreCase(ADVISORY_HOLDERS);
    }

    /** {@code jdbc:h2:<db>;KEY=value;...}; a backslash escapes a semicolon inside a value. */
    private static String stripH2(String url, Map<String, String> baton) {
        List<String> kept = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= url.length(); i++) {
            boolean end = i == url.length();
            if (end || (url.charAt(i) == ';' && (i == 0 || url.charAt(i - 1) != '\\'))) {
                String part = url.substring(start, i);
                if (kept.isEmpty() || !take(part, false, baton, url)) {
                    kept.add(part);
                }
                start = i + 1;
            }
        }
        return String.join(";", kept);
    }

    /** {@code jdbc:postgresql://host/db?key=value&...}. */
    private static String stripPostgres(String url, Map<String, String> baton) {
        int query = url.indexOf('?');
        if (query < 0) {
            return url;
        }
        List<String> kept = new ArrayList<>();
        for (String part : url.substring(query + 1).split("&", -1)) {
            if (!take(part, true, baton, url)) {
                kept.add(part);
            }
        }
        String base = url.substring(0, query);
        return kept.isEmpty() ? base : base + "?" + String.join("&", kept);
    }

    /** Records {@code part} if it is a Baton parameter and says so. */
    private static boolean take(String part, boolean urlEncoded, Map<String, String> baton, String url) {
        int eq = part.indexOf('=');
        // Baton's names are plain ASCII, so the raw key is compared; only Baton's values are decoded.
        String key = (eq < 0 ? part : part.substring(0, eq)).strip();
        if (!isBaton(key)) {
            return false;
        }
        String value = eq < 0 ? "" : part.substring(eq + 1).strip();
        if (urlEncoded) {
            value = decode(value, url);
        }
        if (value.isEmpty()) {
            throw new LockConfigurationException("Baton JDBC URL " + redact(url) + ": the parameter " + key
                    + " has no value; give " + key + "=<value> or leave it out");
        }
        if (baton.putIfAbsent(key, value) != null) {
            throw new LockConfigurationException("Baton JDBC URL " + redact(url) + ": the parameter "
                    + key.toLowerCase(Locale.ROOT) + " is given more than once; keep one");
        }
        return true;
    }

    private static String decode(String text, String url) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(
                    "Baton JDBC URL " + redact(url) + ": '" + text + "' is not correctly URL-encoded", e);
        }
    }

    /** The URL with any password replaced by {@code ***}, for messages and logs. */
    static String redact(String text) {
        return text.replaceAll("(?i)(password=)[^&;\\s]*", "$1***").replaceAll("://([^/@:]*):[^/@]*@", "://$1:***@");
    }
}
