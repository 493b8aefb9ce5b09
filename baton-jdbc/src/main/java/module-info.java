/**
 * Baton's JDBC backend: table, pessimistic and advisory locks on H2, PostgreSQL and MariaDB/MySQL,
 * through {@code Baton.connect("jdbc:...")} or {@link dev.baton.jdbc.JdbcLocks} on an application's
 * {@link javax.sql.DataSource}.
 */
// org.postgresql.jdbc is an automatic module (named in the driver's manifest), which javac's lint flags.
@SuppressWarnings("requires-automatic")
module dev.baton.jdbc {
    requires transitive dev.baton.core;
    requires transitive java.sql;
    requires com.zaxxer.hikari;
    requires org.slf4j;
    // Driver types for LISTEN/NOTIFY and statement cancel, used when the driver is there.
    requires static org.postgresql.jdbc;
    requires static org.mariadb.jdbc;

    exports dev.baton.jdbc;

    // The LISTEN connection's sockets, which the PostgreSQL driver instantiates by name.
    opens dev.baton.jdbc.listen to
            org.postgresql.jdbc;

    provides dev.baton.spi.LockBackendProvider with
            dev.baton.jdbc.JdbcLockBackendProvider;
}
