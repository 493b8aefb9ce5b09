package dev.baton.jdbc.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fills in the statement templates of one protocol and dialect: the protocol's own placeholders
 * (its tables, its guard, ...) in the order given, then {@code {now+lease}} (the database's clock
 * plus the lease, bound in milliseconds as a parameter) and {@code {now}} (the database's clock).
 * Also the shapes every protocol builds the same way: IN lists and PostgreSQL's notifying release.
 */
public final class SqlTemplate {
    private final Dialect dialect;
    private final Map<String, String> values = new LinkedHashMap<>();

    public SqlTemplate(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Replaces {@code placeholder} with {@code value}, after the placeholders given before it. */
    public SqlTemplate with(String placeholder, String value) {
        values.put(placeholder, value);
        return this;
    }

    public String sql(String template) {
        String sql = template;
        for (Map.Entry<String, String> value : values.entrySet()) {
            sql = sql.replace(value.getKey(), value.getValue());
        }
        return sql.replace("{now+lease}", dialect.nowPlusMillis()).replace("{now}", dialect.now());
    }

    /** {@code prefix} followed by {@code (?, ?, ...)} for each of {@code rows} rows of {@code columns}. */
    public static String inList(String prefix, int columns, int rows) {
        return prefix + placeholders(rows, columns);
    }

    /** {@code (?, ?)} or {@code ((?, ?), (?, ?))}: an IN list of {@code count} tuples of {@code width}. */
    public static String placeholders(int count, int width) {
        String one = width == 1 ? "?" : "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
        return "(" + String.join(", ", Collections.nCopies(count, one)) + ")";
    }

    /**
     * PostgreSQL: a release (a DELETE or UPDATE of lock rows with {@code lock_name} and {@code
     * waiter}) wrapped so that, for each row it wrote, it NOTIFYs {@code channel} (an expression over
     * the written row {@code alias}) when that is not null, delivered when the transaction commits, and
     * returns one row per row written.
     */
    public static String notifying(String release, String alias, String channel) {
        return "WITH " + alias + " AS (" + release + " RETURNING lock_name, waiter)"
                + " SELECT (SELECT pg_notify(c.channel, " + alias + ".lock_name) FROM (SELECT " + channel
                + " AS channel) c WHERE c.channel IS NOT NULL) FROM " + alias;
    }

    /**
     * A statement written with named parameters ({@code :name}; PostgreSQL's {@code ::type} casts are
     * left alone), as JDBC text and the names of its {@code ?} in order: the long hand-off statements
     * bind the same value in several places.
     */
    public record Named(String text, List<String> params) {
        private static final Pattern PARAM = Pattern.compile("(?<!:):([a-z][a-z0-9]*)");

        public static Named of(String named) {
            List<String> params = new ArrayList<>();
            Matcher m = PARAM.matcher(named);
            StringBuilder text = new StringBuilder();
            while (m.find()) {
                params.add(m.group(1));
                m.appendReplacement(text, "?");
            }
            m.appendTail(text);
            return new Named(text.toString(), List.copyOf(params));
        }
    }
}
