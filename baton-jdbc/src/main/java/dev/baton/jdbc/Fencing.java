package dev.baton.jdbc;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes to rows of your own tables that refuse a holder whose fencing token is stale ({@code
 * docs/concepts.md}, "Fencing tokens").
 *
 * <pre>{@code
 * if (!Fencing.guardedUpdate(connection, INVOICES, 42, lease.fencingToken(), Map.of("status", "paid"))) {
 *     return; // a newer holder has written this row: this lease is stale, stop
 * }
 * }</pre>
 *
 * <p>Guarantee: the row keeps the highest token it has accepted in a {@code BIGINT} column ({@code
 * NULL} until the first guarded write) and refuses a lower one, in one {@code UPDATE ... WHERE key = ?
 * AND (token IS NULL OR token <= ?)} decided under the row lock (at REPEATABLE READ or SERIALIZABLE,
 * PostgreSQL may fail it with a serialization error instead). Equal tokens are accepted, so one holder
 * may write several times and several rows. It holds for writes through these methods, while the row
 * exists.
 *
 * <p>The statements run in the caller's transaction, which is never committed or rolled back here;
 * until the caller commits, other guarded writers of the row wait.
 *
 * <p>Failure behaviour: bad arguments (a name that is not a plain identifier of at most 63 characters,
 * the table optionally schema-qualified; a null key, a negative token, no values, a value naming the
 * key or token column) throw {@link IllegalArgumentException} before any statement runs; names are
 * spliced into the SQL unquoted, values bound. An {@link SQLException} from the driver passes through,
 * and the statement then wrote nothing.
 */
public final class Fencing {

    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,62}";
    private static final Pattern COLUMN = Pattern.compile(IDENTIFIER);
    private static final Pattern TABLE = Pattern.compile("(?:" + IDENTIFIER + "\\.)?" + IDENTIFIER);

    private Fencing() {}

    /**
     * A table whose rows are written with fencing, validated on construction; cheap to keep in a constant.
     *
     * @param name the table, such as {@code invoices} or {@code billing.invoices}
     * @param keyColumn the column identifying a row; unique for {@link Fencing#guardedUpsert}
     * @param tokenColumn the {@code BIGINT} column holding the highest accepted fencing token
     */
    public record Table(String name, String keyColumn, String tokenColumn) {
        /**
         * Validates the names, so that a bad one fails here rather than at the first write.
         *
         * @param name the table
         * @param keyColumn the key column
         * @param tokenColumn the token column
         * @throws IllegalArgumentException if a name is not a plain identifier, or the columns are equal
         */
        public Table {
            requireIdentifier(TABLE, "table name", name);
            requireIdentifier(COLUMN, "key column", keyColumn);
            requireIdentifier(COLUMN, "token column", tokenColumn);
            if (keyColumn.equalsIgnoreCase(tokenColumn)) {
                throw new IllegalArgumentException("Fencing: the key column and the token column of table " + name
                        + " must differ, but both are '" + keyColumn + "'");
            }
        }
    }

    /**
     * Writes {@code values} and {@code fencingToken} into the row with {@code key}, if that row has not
     * accepted a higher token; one statement.
     *
     * @param connection the connection to run the statement on, in its current transaction
     * @param table the table, key column and token column
     * @param key the key of the row to write
     * @param fencingToken the token of the lease the caller holds, {@code lease.fencingToken()}
     * @param values the columns to set and their values (null is SQL {@code NULL}); at least one, not
     *     the key or token column
     * @return {@code true} if the row was written; {@code false} if it holds a higher token (the lease
     *     is stale: stop acting on it), there is no such row, or (MariaDB/MySQL with {@code
     *     useAffectedRows=true}) the write changed nothing
     * @throws IllegalArgumentException for bad arguments; see the class description
     * @throws SQLException if the database fails the statement; nothing was written
     */
    public static boolean guardedUpdate(
            Connection connection, Table table, Object key, long fencingToken, Map<String, ?> values)
            throws SQLException {
        return Write.of(connection, table, key, fencingToken, values).update(connection);
    }

    /**
     * Like {@link #guardedUpdate}, but inserts the row when no row has the key (which must be unique);
     * each step (update, insert, update again if another writer inserted meanwhile) is atomic.
     *
     * @param connection the connection to write with, in the caller's transaction
     * @param table the table, key column and token column
     * @param key the key of the row to write or insert
     * @param fencingToken the token of the lease the caller holds, {@code lease.fencingToken()}
     * @param values the columns to set and their values (null is SQL {@code NULL}); at least one, not
     *     the key or token column
     * @return {@code true} if the row was inserted or written; {@code false} if it holds a higher
     *     token (or another writer deleted it while this call ran)
     * @throws IllegalArgumentException for bad arguments; see the class description
     * @throws SQLFeatureNotSupportedException if the database is not H2, PostgreSQL or MariaDB/MySQL
     * @throws SQLException if the database fails a statement (a duplicate in another unique column, a
     *     deadlock between two first writers under REPEATABLE READ); nothing was written
     */
    public static boolean guardedUpsert(
            Connection connection, Table table, Object key, long fencingToken, Map<String, ?> values)
            throws SQLException {
        Write write = Write.of(connection, table, key, fencingToken, values);
        String product = connection.getMetaData().getDatabaseProductName();
        Dialect dialect = Dialect.ofProductName(product)
                .orElseThrow(() -> new SQLFeatureNotSupportedException("Fencing.guardedUpsert supports H2,"
                        + " PostgreSQL and MariaDB/MySQL, not " + product + "; create the row first and use"
                        + " Fencing.guardedUpdate, which works on any database"));
        if (write.update(connection)) {
            return true;
        }
        try {
            if (write.insert(connection, dialect)) {
                return true;
            }
        } catch (SQLException e) {
            if (dialect == Dialect.POSTGRESQL || !JdbcFailures.isDuplicateKey(e)) {
                throw e; // on PostgreSQL the clash is in another unique column, and the transaction is spoilt
            }
            // H2, MariaDB: the key was inserted since our update, or the clash is in another column.
            if (write.update(connection)) {
                return true;
            }
            if (!write.exists(connection)) {
                throw e;
            }
            return false;
        }
        return write.update(connection); // PostgreSQL: ON CONFLICT found the row inserted meanwhile
    }

    private static void requireIdentifier(Pattern pattern, String what, String identifier) {
        if (identifier == null || !pattern.matcher(identifier).matches()) {
            throw new IllegalArgumentException("Fencing: the " + what + " "
                    + (identifier == null ? "is null" : "'" + identifier + "' is not a plain SQL identifier")
                    + "; use 1 to 63 letters, digits or underscores, not starting with a digit"
                    + (pattern == TABLE ? ", optionally prefixed by a schema name and a dot (billing.invoices)" : ""));
        }
    }

    private record Write(Table table, Object key, long token, List<String> columns, List<Object> values) {

        static Write of(Connection connection, Table table, Object key, long token, Map<String, ?> values) {
            if (connection == null) {
                throw new IllegalArgumentException("Fencing: the connection is null");
            }
            if (table == null) {
                throw new IllegalArgumentException("Fencing: the table is null; pass a Fencing.Table");
            }
            if (key == null) {
                throw new IllegalArgumentException(
                        "Fencing: the key is null; pass the value of " + table.keyColumn() + " of the row to write");
            }
            if (token < 0) {
                throw new IllegalArgumentException("Fencing: the fencing token " + token + " is negative; pass"
                        + " lease.fencingToken() of the lease you hold");
            }
            if (values == null || values.isEmpty()) {
                throw new IllegalArgumentException("Fencing: no values to write into " + table.name()
                        + "; pass at least one column and its value");
            }
            List<String> columns = new ArrayList<>(values.size());
            List<Object> bound = new ArrayList<>(values.size());
            Set<String> seen = new HashSet<>();
            for (Map.Entry<String, ?> entry : values.entrySet()) {
                String column = entry.getKey();
                requireIdentifier(COLUMN, "value column", column);
                String folded = column.toLowerCase(Locale.ROOT);
                if (folded.equals(table.keyColumn().toLowerCase(Locale.ROOT))
                        || folded.equals(table.tokenColumn().toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("Fencing: the values must not set the key or token column,"
                            + " but they set '" + column + "'; the key selects the row and the token column is"
                            + " written from the fencing token");
                }
                if (!seen.add(folded)) {
                    throw new IllegalArgumentException(
                            "Fencing: the values name column '" + column + "' twice (names are not case-sensitive)");
                }
                columns.add(column);
                bound.add(entry.getValue());
            }
            return new Write(table, key, token, List.copyOf(columns), bound); // bound may hold nulls
        }

        boolean update(Connection connection) throws SQLException {
            String tokenColumn = table.tokenColumn();
            String sql = "UPDATE " + table.name() + " SET " + String.join(" = ?, ", columns) + " = ?, " + tokenColumn
                    + " = ? WHERE " + table.keyColumn() + " = ? AND (" + tokenColumn + " IS NULL OR " + tokenColumn
                    + " <= ?)";
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                int index = bindValues(statement, 1);
                statement.setLong(index++, token);
                statement.setObject(index++, key);
                statement.setLong(index, token);
                return statement.executeUpdate() > 0;
            }
        }

        /** The INSERT that meets an existing key quietly (PostgreSQL) or with a duplicate-key error. */
        boolean insert(Connection connection, Dialect dialect) throws SQLException {
            String insert = "INSERT INTO " + table.name() + " (" + table.keyColumn() + ", " + String.join(", ", columns)
                    + ", " + table.tokenColumn() + ") VALUES (?" + ", ?".repeat(columns.size() + 1) + ")";
            try (PreparedStatement statement =
                    connection.prepareStatement(dialect.insertIfAbsent(insert, table.keyColumn()))) {
                statement.setObject(1, key);
                int index = bindValues(statement, 2);
                statement.setLong(index, token);
                return statement.executeUpdate() > 0;
            }
        }

        boolean exists(Connection connection) throws SQLException {
            String sql = "SELECT 1 FROM " + table.name() + " WHERE " + table.keyColumn() + " = ?";
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, key);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next();
                }
            }
        }

        private int bindValues(PreparedStatement statement, int first) throws SQLException {
            int index = first;
            for (Object value : values) {
                statement.setObject(index++, value);
            }
            return index;
        }
    }
}
