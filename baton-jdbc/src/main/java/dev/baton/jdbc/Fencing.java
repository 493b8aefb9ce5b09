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
 * Writes to rows of your own tables that refuse a holder whose fencing token is stale: the usual
 * pattern {@code store.write(data, lease.fencingToken())}, for a table in a relational database.
 *
 * <pre>{@code
 * static final Fencing.Table INVOICES = new Fencing.Table("invoices", "id", "fencing_token");
 *
 * try (Lease lease = lock.acquire(Duration.ofSeconds(5));
 *         Connection connection = dataSource.getConnection()) {
 *     if (!Fencing.guardedUpdate(connection, INVOICES, 42, lease.fencingToken(), Map.of("status", "paid"))) {
 *         return; // a newer holder has written this row: this lease is stale, stop
 *     }
 * }
 * }</pre>
 *
 * <p>The row carries the highest token it has accepted in a {@code BIGINT} column (the token
 * column, {@code NULL} until the first guarded write). Guarantee: a write whose token is lower than
 * one the row has already accepted is refused, and a write that is accepted records its token. The
 * comparison and the write are one {@code UPDATE ... SET ..., token = ? WHERE key = ? AND (token IS
 * NULL OR token <= ?)}, so the database decides atomically under its row lock: no other writer can
 * slip in between the check and the write (at REPEATABLE READ or SERIALIZABLE, PostgreSQL may fail
 * the statement with a serialization error instead). Equal tokens are accepted,
 * so one holder may write several times, and several rows, with its one token. This works on any
 * database with standard SQL; {@link #guardedUpsert} also inserts a missing row on H2, PostgreSQL
 * and MariaDB/MySQL. The guarantee holds for writes that go through these methods (a plain {@code
 * UPDATE} that ignores the token column is not fenced), and only as long as the row exists:
 * deleting it forgets its token.
 *
 * <p>Transactions: the statements run on the caller's connection, in its current transaction,
 * with its settings; nothing is committed, rolled back or changed here. With auto-commit off the
 * accepted write and its token become visible when the caller commits, and until then the row
 * stays locked, so other guarded writers of that row wait for the commit (or its rollback, which
 * also forgets the token) and then decide on the row as it is.
 *
 * <p>Failure behaviour: arguments are checked before any statement runs; a bad one (a table or
 * column name that is not a plain SQL identifier, a null key, a negative token, no values to write,
 * a value naming the key or token column) throws {@link IllegalArgumentException} naming it. Table
 * and column names are spliced into the SQL, which is why only plain identifiers ({@code
 * [A-Za-z_][A-Za-z0-9_]*}, at most 63 characters, the table optionally prefixed by a schema and a
 * dot) are accepted; they are not quoted, so the database folds their case as usual. Values and the
 * key are bound as parameters. An {@link SQLException} from the driver (a missing table or column,
 * a wrong type, a timeout, a deadlock or serialization failure) passes through unchanged, so its
 * SQLState and vendor code remain available; the statement then wrote nothing.
 */
public final class Fencing {

    private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]{0,62}";
    private static final Pattern COLUMN = Pattern.compile(IDENTIFIER);
    private static final Pattern TABLE = Pattern.compile("(?:" + IDENTIFIER + "\\.)?" + IDENTIFIER);

    private Fencing() {}

    /**
     * A table whose rows are written with fencing: its name, the column that identifies a row and
     * the {@code BIGINT} column that holds the highest token a row has accepted. Validated once, on
     * construction; immutable and cheap to keep in a constant.
     *
     * @param name the table, such as {@code invoices} or {@code billing.invoices}
     * @param keyColumn the column the key of a write is compared with; for {@link
     *     Fencing#guardedUpsert} it must be the primary key or carry a unique constraint
     * @param tokenColumn the {@code BIGINT} column holding the highest accepted fencing token, or
     *     {@code NULL} for a row no guarded write has touched yet
     */
    public record Table(String name, String keyColumn, String tokenColumn) {
        /**
         * Validates the names, so that a bad one fails here rather than at the first write.
         *
         * @param name the table, such as {@code invoices} or {@code billing.invoices}
         * @param keyColumn the column the key of a write is compared with
         * @param tokenColumn the {@code BIGINT} column holding the highest accepted fencing token
         * @throws IllegalArgumentException if a name is not a plain identifier (the table optionally
         *     schema-qualified), or the two columns are the same
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
     * Writes {@code values} (column name to value) and {@code fencingToken} into the row of {@code
     * table} whose key column equals {@code key}, if that row has not accepted a higher token. One
     * statement: {@code UPDATE table SET c1 = ?, ..., token = ? WHERE key = ? AND (token IS NULL OR
     * token <= ?)}.
     *
     * @param connection the connection to run the statement on, in its current transaction
     * @param table the table, key column and token column
     * @param key the key of the row to write, bound as a parameter
     * @param fencingToken the token of the lease the caller holds, usually {@code
     *     lease.fencingToken()}; at least 0
     * @param values the columns to set and their values (null values are written as SQL {@code
     *     NULL}); at least one, not the key or token column, in the order of the map's iteration
     * @return {@code true} if the row was written; {@code false} if it holds a higher token (the
     *     caller's lease is stale: stop acting on it) or there is no row with that key ({@link
     *     #guardedUpsert} inserts it instead). On MariaDB/MySQL with the driver option {@code
     *     useAffectedRows=true}, a write that changes nothing at all also returns {@code false}.
     * @throws IllegalArgumentException for bad arguments; see the class description
     * @throws SQLException if the database fails the statement; nothing was written
     */
    public static boolean guardedUpdate(
            Connection connection, Table table, Object key, long fencingToken, Map<String, ?> values)
            throws SQLException {
        Write write = Write.of(connection, table, key, fencingToken, values);
        return write.update(connection);
    }

    /**
     * Like {@link #guardedUpdate}, but inserts the row (key, values and token) when no row has the
     * key, so the first write needs no row prepared beforehand. The key column must be the primary
     * key or unique. It tries the guarded update first and, only if that writes nothing, an insert
     * that meets an existing key quietly ({@code ON CONFLICT DO NOTHING} on PostgreSQL; on H2 and
     * MariaDB/MySQL a duplicate key fails only that statement, not the transaction); if another
     * writer inserted the row in between, it runs the guarded update once more. Each step is one
     * atomic statement, so the guarantee of the class holds: a row is inserted only where none
     * exists, and an existing row is written only if it has not accepted a higher token.
     *
     * @param connection the connection to write with, in the caller's transaction (auto-commit or
     *     not); the caller commits and closes it
     * @param table the table, key column and token column; the key column must be unique
     * @param key the key of the row to write or insert, bound as a parameter
     * @param fencingToken the token of the lease the caller holds, usually {@code
     *     lease.fencingToken()}; at least 0
     * @param values the columns to set and their values (null values are written as SQL {@code
     *     NULL}); at least one, not the key or token column
     * @return {@code true} if the row was inserted or written; {@code false} if it holds a higher
     *     token (or another writer deleted it while this call ran)
     * @throws IllegalArgumentException for bad arguments; see the class description
     * @throws SQLFeatureNotSupportedException if the database is not H2, PostgreSQL or MariaDB/MySQL
     *     (before anything is written)
     * @throws SQLException if the database fails a statement (including a duplicate in another
     *     unique column, or a deadlock between two first writers of one key in a transaction under
     *     REPEATABLE READ); nothing was written
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
            // H2, MariaDB: someone inserted the key since our update, or the clash is in another
            // unique column; the row decides which.
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

    /** One checked write: the statements and their parameters. */
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

        /** The guarded UPDATE; whether it wrote the row. */
        boolean update(Connection connection) throws SQLException {
            String tokenColumn = table.tokenColumn();
            StringBuilder sql =
                    new StringBuilder("UPDATE ").append(table.name()).append(" SET ");
            for (String column : columns) {
                sql.append(column).append(" = ?, ");
            }
            sql.append(tokenColumn)
                    .append(" = ? WHERE ")
                    .append(table.keyColumn())
                    .append(" = ? AND (")
                    .append(tokenColumn)
                    .append(" IS NULL OR ")
                    .append(tokenColumn)
                    .append(" <= ?)");
            try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
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
