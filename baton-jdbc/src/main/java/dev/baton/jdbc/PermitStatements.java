package dev.baton.jdbc;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;

/** The SQL of {@link JdbcPermits} for one dialect; the comment above each lists its parameters. */
final class PermitStatements {
    final Dialect dialect;
    /** PostgreSQL: a release NOTIFYs the client registered as the semaphore's waiter. */
    final boolean notifies;

    final String lockSemaphore;
    final String insertSemaphore;
    final String countHolders;
    final String deleteExpired;
    final String advanceToken;
    final String insertHolder;
    /** Null where releases do not notify. */
    final String registerWaiter;

    final String renew;
    /** The batch renewal up to its IN list; ? = lease, then each grant's name and owner. */
    final String renewIn;

    final String releaseLive;
    final String deleteHolder;
    final String list;

    PermitStatements(Dialect dialect, TableNames names) {
        this.dialect = dialect;
        this.notifies = dialect == Dialect.POSTGRESQL;
        SqlTemplate template = new SqlTemplate(dialect)
                .with("{semaphores}", names.semaphores())
                .with("{permits}", names.permits());
        // ? = name
        lockSemaphore =
                template.sql("SELECT permits, fencing_token FROM {semaphores} WHERE semaphore_name = ? FOR UPDATE");
        // ? = name, permits
        insertSemaphore = dialect.insertIfAbsent(
                template.sql("INSERT INTO {semaphores} (semaphore_name, permits, fencing_token) VALUES (?, ?, 0)"),
                "semaphore_name");
        // ? = name
        countHolders = template.sql("SELECT COUNT(*), COALESCE(SUM(CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END), 0)"
                + " FROM {permits} WHERE semaphore_name = ?");
        // ? = name
        deleteExpired = template.sql("DELETE FROM {permits} WHERE semaphore_name = ? AND expires_at <= {now}");
        // ? = token, name. A new holder clears the waiter: clients still waiting register again.
        advanceToken = template.sql("UPDATE {semaphores} SET fencing_token = ?" + (notifies ? ", waiter = NULL" : "")
                + " WHERE semaphore_name = ?");
        // ? = name, owner, token, lease, holder
        insertHolder =
                template.sql("INSERT INTO {permits} (semaphore_name, owner_id, fencing_token, expires_at, holder)"
                        + " VALUES (?, ?, ?, {now+lease}, ?)");
        list = template.sql("SELECT p.semaphore_name, s.permits, p.owner_id, p.fencing_token, p.expires_at, "
                + "p.holder FROM {permits} p JOIN {semaphores} s"
                + " ON s.semaphore_name = p.semaphore_name WHERE p.expires_at > {now}"
                + " ORDER BY p.semaphore_name, p.fencing_token");
        // ? = channel, name; registers the client as the semaphore's waiter if none is
        registerWaiter = notifies
                ? template.sql("UPDATE {semaphores} SET waiter = ? WHERE semaphore_name = ? AND waiter IS NULL")
                : null;
        // ? = lease, name, owner
        renew = template.sql("UPDATE {permits} SET expires_at = {now+lease}"
                + " WHERE semaphore_name = ? AND owner_id = ? AND expires_at > {now}");
        renewIn = template.sql("UPDATE {permits} SET expires_at = {now+lease}"
                + " WHERE expires_at > {now} AND (semaphore_name, owner_id) IN ");
        // ? = name, owner. On PostgreSQL also NOTIFYs the waiter and returns one row per row deleted.
        String delete = "DELETE FROM {permits} WHERE semaphore_name = ? AND owner_id = ? AND expires_at > {now}";
        releaseLive = notifies
                ? template.sql("WITH d AS (" + delete + " RETURNING semaphore_name) SELECT (SELECT pg_notify(s.waiter, "
                        + "chr(1) || s.semaphore_name) FROM {semaphores} s"
                        + " WHERE s.semaphore_name = d.semaphore_name AND s.waiter IS NOT NULL) FROM d")
                : template.sql(delete);
        // ? = name, owner
        deleteHolder = template.sql("DELETE FROM {permits} WHERE semaphore_name = ? AND owner_id = ?");
    }
}
