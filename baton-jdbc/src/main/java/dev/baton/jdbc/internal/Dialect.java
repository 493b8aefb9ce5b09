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

/** What differs between H2, PostgreSQL and MariaDB/MySQL in the SQL the strategies compose; DDL is in resources. */
public enum Dialect {
    // H2's CURRENT_TIMESTAMP is fixed at its first use in a transaction; ours last a few statements,
    // so expiries come out that much early and takeovers that much late: both safe.
    H2("H2", "org.h2.Driver", "com.h2database:h2", "CURRENT_TIMESTAMP", "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)"),
    // clock_timestamp(), not now(): now() is the start of the transaction, which may lie before a
    // wait for a row lock.
    POSTGRESQL(
            "PostgreSQL",
            "org.postgresql.Driver",
            "org.postgresql:postgresql",
            "clock_timestamp()",
            "(clock_timestamp() + (? * INTERVAL '1 millisecond'))"),
    // Also MySQL. UTC_TIMESTAMP(6), not NOW(6), which follows the session's time zone: times are UTC DATETIME(6).
    MARIADB(
            "MariaDB",
            "org.mariadb.jdbc.Driver",
            "org.mariadb.jdbc:mariadb-java-client",
            "UTC_TIMESTAMP(6)",
            "TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))");

    private final String displayName;
    private final String driverClass;
    private final String driverArtifact;
    private final String now;
    private final String nowPlusMillis;

    Dialect(String displayName, String driverClass, String driverArtifact, String now, String nowPlusMillis) {
        this.displayName = displayName;
        this.driverClass = driverClass;
        this.driverArtifact = driverArtifact;
        this.now = now;
        this.nowPlusMillis = nowPlusMillis;
    }

    public String now() {
        return now;
    }

    /** {@link #now()} plus the milliseconds bound to its one {@code ?}. */
    public String nowPlusMillis() {
        return nowPlusMillis;
    }

    public String nextToken(String sequence) {
        return this == POSTGRESQL ? "nextval('" + sequence + "')" : "NEXT VALUE FOR " + sequence;
    }

    /** PostgreSQL inserts nothing on an existing key: a failure would abort its transaction, still in use. */
    public String insertIfAbsent(String insert, String keyColumn) {
        return this == POSTGRESQL ? insert + " ON CONFLICT (" + keyColumn + ") DO NOTHING" : insert;
    }

    /** A query that runs the INSERT/UPDATE and returns {@code columns} of the rows it wrote. */
    public String returning(String dataChange, String columns) {
        return switch (this) {
            case H2 -> "SELECT " + columns + " FROM FINAL TABLE (" + dataChange + ")";
            case POSTGRESQL -> dataChange + " RETURNING " + columns;
            case MARIADB -> throw new UnsupportedOperationException("MariaDB has no UPDATE ... RETURNING");
        };
    }

    /** Fails when the sequence is missing; on H2, which cannot select from one, it takes a value (harmless). */
    public String probeSequence(String sequence) {
        return this == H2 ? "SELECT NEXT VALUE FOR " + sequence : "SELECT 1 FROM " + sequence + " WHERE 1 = 0";
    }

    /** A timestamp column written by {@link #now()} or {@link #nowPlusMillis()}, as an instant. */
    public Instant instant(ResultSet rs, int column) throws SQLException {
        if (this == MARIADB) {
            LocalDateTime utc = rs.getObject(column, LocalDateTime.class);
            return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** As it appears in the backend's name, e.g. {@code PostgreSQL}. */
    public String displayName() {
        return displayName;
    }

    public String driverClass() {
        return driverClass;
    }

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
