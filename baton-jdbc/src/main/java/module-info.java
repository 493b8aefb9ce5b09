/**
 * Baton's JDBC backend: table, optimistic, pessimistic and advisory locks on H2, PostgreSQL and
 * MariaDB/MySQL. {@code Baton.connect("jdbc:...")} finds it through {@link
 * dev.baton.spi.LockBackendProvider}; {@link dev.baton.jdbc.JdbcLocks} builds a client on an
 * application's {@link javax.sql.DataSource}.
 */
// The PostgreSQL driver names its module in its manifest (Automatic-Module-Name org.postgresql.jdbc,
// kept stable by the driver's project); javac's lint flags any requires of such a module.
@SuppressWarnings("requires-automatic")
module dev.baton.jdbc {
    requires transitive dev.baton.core;
    requires transitive java.sql;
    requires com.zaxxer.hikari;
    requires org.slf4j;
    // Driver types for PostgreSQL's LISTEN/NOTIFY and each driver's statement cancel: read when the
    // driver is there (java.sql resolves drivers as services), as on the class path; the module
    // resolves without them.
    requires static org.postgresql.jdbc;
    requires static org.mariadb.jdbc;

    exports dev.baton.jdbc;

    // The LISTEN connection's sockets, which the PostgreSQL driver instantiates by name.
    opens dev.baton.jdbc.listen to
            org.postgresql.jdbc;

    provides dev.baton.spi.LockBackendProvider with
            dev.baton.jdbc.JdbcLockBackendProvider;
}
