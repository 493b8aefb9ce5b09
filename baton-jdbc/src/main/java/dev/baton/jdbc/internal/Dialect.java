package dev.baton.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * What differs between H2, PostgreSQL and MariaDB/MySQL in the SQL every strategy composes: the
 * server clock, the sequence, how a statement returns the rows it changed and how an insert meets an
 * existing key. The DDL is in resources ({@link JdbcSchema}).
 */
public enum Dialect {
    H2("H2", "org.h2.Driver", "com.h2database:h2") {
        @Override
        public String now() {
            // H2 has no per-statement clock: CURRENT_TIMESTAMP is fixed at its first use in a
            // transaction. Ours last a few statements, so "now" lags by at most that: expiries computed
            // from it come out that much early (safe), takeovers happen that much later (safe).
            return "CURRENT_TIMESTAMP";
        }

        @Override
        public String nowPlusMillis() {
            return "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)";
        }

        @Override
        public String nextToken(String sequence) {
            return "NEXT VALUE FOR " + sequence;
        }

        @Override
        public String insertIfAbsent(String insert, String keyColumn) {
            // A duplicate key fails the statement (23505) but, unlike on PostgreSQL, not the transaction.
            return insert;
        }

        @Override
        public String returning(String dataChange, String columns) {
            return "SELECT " + columns + " FROM FINAL TABLE (" + dataChange + ")";
        }

        @Override
        public String probeSequence(String sequence) {
            // H2 cannot select from a sequence; taking one value is harmless (tokens only need to grow).
            return "SELECT NEXT VALUE FOR " + sequence;
        }
    },

    POSTGRESQL("PostgreSQL", "org.postgresql.Driver", "org.postgresql:postgresql") {
        @Override
        public String now() {
            // clock_timestamp(), not now(): now() is the start of the transaction, which may lie before
            // a wait for a row lock.
            return "clock_timestamp()";
        }

        @Override
        public String nowPlusMillis() {
            return "(clock_timestamp() + (? * INTERVAL '1 millisecond'))";
        }

        @Override
        public String nextToken(String sequence) {
            return "nextval('" + sequence + "')";
        }

        @Override
        public String insertIfAbsent(String insert, String keyColumn) {
            // An error would abort the whole transaction, which the caller still uses.
            return insert + " ON CONFLICT (" + keyColumn + ") DO NOTHING";
        }

        @Override
        public String returning(String dataChange, String columns) {
            return dataChange + " RETURNING " + columns;
        }

        @Override
        public String probeSequence(String sequence) {
            return "SELECT 1 FROM " + sequence + " WHERE 1 = 0";
        }
    },

    /**
     * MariaDB (and MySQL through the MariaDB driver). Times are DATETIME(6) in UTC: the server has no
     * time zone type. There is no UPDATE ... RETURNING.
     */
    MARIADB("MariaDB", "org.mariadb.jdbc.Driver", "org.mariadb.jdbc:mariadb-java-client") {
        @Override
        public String now() {
            // Not NOW(6), which follows the session time zone.
            return "UTC_TIMESTAMP(6)";
        }

        @Override
        public String nowPlusMillis() {
            return "TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))";
        }

        @Override
        public String nextToken(String sequence) {
            return "NEXT VALUE FOR " + sequence;
        }

        @Override
        public String insertIfAbsent(String insert, String keyColumn) {
            // A duplicate key fails the statement only (SQLState 23000, code 1062), not the transaction.
            return insert;
        }

        @Override
        public String returning(String dataChange, String columns) {
            throw new UnsupportedOperationException("MariaDB has no UPDATE ... RETURNING");
        }

        @Override
        public String probeSequence(String sequence) {
            return "SELECT 1 FROM " + sequence + " WHERE 1 = 0";
        }

        @Override
        public Instant instant(ResultSet rs, int column) throws SQLException {
            LocalDateTime utc = rs.getObject(column, LocalDateTime.class);
            return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
        }
    };

    private final String displayName;
    private final String driverClass;
    private final String driverArtifact;

    Dialect(String displayName, String driverClass, String driverArtifact) {
        this.displayName = displayName;
        this.driverClass = driverClass;
        this.driverArtifact = driverArtifact;
    }

    /** The database's current time, as an SQL expression. */
    public abstract String now();

    /** The database's current time plus the milliseconds bound to its one {@code ?} parameter. */
    public abstract String nowPlusMillis();

    /** The next value of the fencing sequence, as an SQL expression. */
    public abstract String nextToken(String sequence);

    /** The insert, made to insert nothing (or fail with 23505) when the key exists. */
    public abstract String insertIfAbsent(String insert, String keyColumn);

    /** A query that runs the INSERT/UPDATE and returns {@code columns} of the rows it wrote. */
    public abstract String returning(String dataChange, String columns);

    /** A statement that fails when the sequence does not exist. */
    public abstract String probeSequence(String sequence);

    /** A timestamp column written by {@link #now()} or {@link #nowPlusMillis()}, as an instant. */
    public Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** As it appears in the backend's name, e.g. {@code PostgreSQL}. */
    public String displayName() {
        return displayName;
    }

    /** The driver class that must be on the class path. */
    public String driverClass() {
        return driverClass;
    }

    /** The Maven coordinates of the driver. */
    public String driverArtifact() {
        return driverArtifact;
    }

    /** The dialect of a JDBC URL, by its sub-protocol: {@code jdbc:h2:}, ... */
    public static Optional<Dialect> ofUrl(String jdbcUrl) {
        String lower = jdbcUrl.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(d -> lower.startsWith("jdbc:" + d.name().toLowerCase(Locale.ROOT) + ":"))
                .findFirst();
    }

    /** The dialect of {@code DatabaseMetaData.getDatabaseProductName()}; MySQL is MariaDB's. */
    public static Optional<Dialect> ofProductName(String productName) {
        String product = productName == null ? "" : productName.trim();
        return product.equalsIgnoreCase("mysql")
                ? Optional.of(MARIADB)
                : Arrays.stream(values())
                        .filter(d -> d.displayName.equalsIgnoreCase(product))
                        .findFirst();
    }
}
