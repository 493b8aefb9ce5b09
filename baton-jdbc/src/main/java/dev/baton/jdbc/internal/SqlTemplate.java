package dev.baton.jdbc.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fills in a protocol's statement templates: its own placeholders in the order given, then {@code
 * {now+lease}} (lease bound in milliseconds) and {@code {now}}, the database's clock.
 */
public final class SqlTemplate {
    private final Dialect dialect;
    private final Map<String, String> values = new LinkedHashMap<>();

    public SqlTemplate(Dialect dialect) {
        this.dialect = dialect;
    }

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

    public static String inList(String prefix, int columns, int rows) {
        return prefix + placeholders(rows, columns);
    }

    /** {@code (?, ?)} or {@code ((?, ?), (?, ?))}: an IN list of {@code count} tuples of {@code width}. */
    public static String placeholders(int count, int width) {
        String one = width == 1 ? "?" : "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
        return "(" + String.join(", ", Collections.nCopies(count, one)) + ")";
    }

    /**
     * PostgreSQL: a release of lock rows that NOTIFYs, on commit, each written row's {@code channel}
     * (an expression over {@code alias}) when not null, returning one row per row written.
     */
    public static String notifying(String release, String alias, String channel) {
        return "WITH " + alias + " AS (" + release + " RETURNING lock_name, waiter)"
                + " SELECT (SELECT pg_notify(c.channel, " + alias + ".lock_name) FROM (SELECT " + channel
                + " AS channel) c WHERE c.channel IS NOT NULL) FROM " + alias;
    }

    /**
     * A statement with named parameters ({@code :name}, not PostgreSQL's {@code ::type}) as JDBC text and
     * the names of its {@code ?}: the hand-off statements bind one value in several places.
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
