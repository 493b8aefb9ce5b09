package dev.baton.jdbc;

import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.JdbcTime;
import dev.baton.jdbc.internal.LockRows;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Semaphore permits ({@link LockKind#PERMIT}) for every strategy, in two tables of their own so that a
 * semaphore never meets a lock of the same name ({@code docs/backends/jdbc.md}, "Semaphores").
 *
 * <p>Safe because every holder is inserted under the lock of the name's row, so the count read there
 * can only be too high and tokens drawn under it strictly increase; rows are locked name row first,
 * then holder rows, so there is no deadlock. On PostgreSQL a refused attempt registers its client's
 * channel in the name row, and the release NOTIFYs it.
 */
final class JdbcPermits {
    private static final Logger log = LoggerFactory.getLogger(JdbcPermits.class);

    /** The {@link Grant#backendState()} of every permit grant. */
    private static final Object PERMIT = new Object() {
        @Override
        public String toString() {
            return "jdbc-permit";
        }
    };

    private final Supplier<String> backendName;
    final JdbcConnections connections;
    private final TableNames names;
    private final boolean createSchema;
    private final Function<String, Dialect> strategyCheck;
    private final PgNotifications notifications;
    private final SchemaGate<PermitStatements> gate;

    /** @param strategyCheck the backend's own check for a name; returns the database's dialect */
    JdbcPermits(
            Supplier<String> backendName,
            JdbcConnections connections,
            TableNames names,
            boolean createSchema,
            Function<String, Dialect> strategyCheck,
            PgNotifications notifications) {
        this.backendName = backendName;
        this.connections = connections;
        this.names = names;
        this.createSchema = createSchema;
        this.strategyCheck = strategyCheck;
        this.notifications = notifications;
        this.gate = new SchemaGate<>(
                backendName,
                "semaphore",
                connections.operationTimeout,
                names,
                sql -> JdbcSchema.ddl("permits", sql.dialect, names));
    }

    static boolean isPermit(Grant grant) {
        return grant.backendState() == PERMIT;
    }

    static boolean isPermit(LockRequest request) {
        return request.kind() == LockKind.PERMIT;
    }

    private record Semaphore(int permits, long token) {}

    private record Holders(int total, int expired) {}

    Optional<Grant> tryAcquire(LockRequest request) {
        connections.attemptStarts();
        String name = request.name();
        PermitStatements sql;
        JdbcSession session;
        try {
            sql = ready(name);
            session = connections.open(true);
        } catch (SQLException e) {
            connections.unsent(request);
            throw failure(name, "acquire", e);
        } catch (RuntimeException e) {
            connections.unsent(request);
            throw e;
        }
        long lease = JdbcTime.leaseMillis(request.leaseTime());
        try (JdbcSession tx = session) {
            Semaphore semaphore = lockSemaphore(tx, sql, request);
            Holders holders = tx.first(sql.countHolders, rs -> new Holders(rs.getInt(1), rs.getInt(2)), name)
                    .orElse(new Holders(0, 0));
            // Rows a concurrent release deletes meanwhile only make `live` too high, which is safe.
            int live = holders.expired() == 0 ? holders.total() : holders.total() - tx.update(sql.deleteExpired, name);
            if (live >= semaphore.permits()) {
                if (sql.registerWaiter != null && notifications.registerWaiters()) {
                    tx.update(sql.registerWaiter, notifications.channel(), name);
                }
                tx.commit(); // the deleted expired holders, and the registration
                return Optional.empty();
            }
            long token = semaphore.token() + 1;
            tx.update(sql.advanceToken, token, name);
            tx.update(sql.insertHolder, name, request.ownerId(), token, lease, request.holder());
            tx.commit();
            return Optional.of(Grant.builder(name, request.ownerId(), request.mode())
                    .fencingToken(token)
                    .expiresAt(JdbcTime.expiry(lease))
                    .backendState(PERMIT)
                    .build());
        } catch (SQLException e) {
            if (JdbcFailures.isConflict(e)) {
                log.debug(
                        "Baton semaphore '{}' on {}: acquire met a concurrent transaction: {}",
                        name,
                        backendName.get(),
                        e.toString());
                return Optional.empty();
            }
            throw failure(name, "acquire", e);
        }
    }

    /** Locks the name's row, inserting it first on the name's first use, and checks the count. */
    private Semaphore lockSemaphore(JdbcSession tx, PermitStatements sql, LockRequest request) throws SQLException {
        String name = request.name();
        JdbcSession.Rows<Semaphore> row = rs -> new Semaphore(rs.getInt(1), rs.getLong(2));
        Optional<Semaphore> semaphore = tx.first(sql.lockSemaphore, row, name);
        if (semaphore.isEmpty()) {
            // Another client may insert it at the same moment: then this insert does nothing (or fails
            // quietly), and the lock below waits for that client's transaction.
            tx.insertIfAbsent(sql.insertSemaphore, name, request.permits());
            semaphore = tx.first(sql.lockSemaphore, row, name);
        }
        Semaphore found = semaphore.orElseThrow(
                () -> new SQLException("the row of semaphore '" + name + "' vanished while being locked", "40001"));
        if (found.permits() != request.permits()) {
            connections.unsent(request); // rolled back: nothing to clean up
            throw new LockConfigurationException("Baton semaphore '" + name + "' on " + backendName.get() + ": it has "
                    + found.permits() + " permits (recorded in " + names.semaphores() + ") but this client asks for "
                    + request.permits() + "; use the same count for this name everywhere, or change it for good"
                    + " once no client uses the old count: UPDATE " + names.semaphores() + " SET permits = "
                    + request.permits() + " WHERE semaphore_name = '" + name.replace("'", "''") + "'"
                    + " (deleting the row instead would restart its fencing tokens)");
        }
        return found;
    }

    Optional<Grant> renew(Grant grant, Duration leaseTime) {
        PermitStatements sql = ready(grant.name());
        long lease = JdbcTime.leaseMillis(leaseTime);
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.renew, lease, grant.name(), grant.ownerId()) == 1
                    ? Optional.of(grant.withExpiresAt(JdbcTime.expiry(lease)))
                    : Optional.empty();
        } catch (SQLException e) {
            throw failure(grant.name(), "renew", e);
        }
    }

    /** Renews a mix of lock grants (with {@code locks}) and permits; the results in the order given. */
    List<Optional<Grant>> renewAll(
            List<Grant> grants, Duration leaseTime, BiFunction<List<Grant>, Duration, List<Optional<Grant>>> locks) {
        List<Grant> permitGrants = grants.stream().filter(JdbcPermits::isPermit).toList();
        if (permitGrants.isEmpty()) {
            return locks.apply(grants, leaseTime);
        }
        List<Grant> lockGrants =
                grants.stream().filter(grant -> !isPermit(grant)).toList();
        Iterator<Optional<Grant>> lockResults =
                locks.apply(lockGrants, leaseTime).iterator();
        Iterator<Optional<Grant>> permitResults =
                renewPermits(permitGrants, leaseTime).iterator();
        List<Optional<Grant>> renewed = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            renewed.add(isPermit(grant) ? permitResults.next() : lockResults.next());
        }
        return renewed;
    }

    private List<Optional<Grant>> renewPermits(List<Grant> grants, Duration leaseTime) {
        if (grants.size() > 1) {
            PermitStatements sql = ready(grants.get(0).name());
            long lease = JdbcTime.leaseMillis(leaseTime);
            List<Object> params = new ArrayList<>(1 + 2 * grants.size());
            params.add(lease);
            for (Grant grant : grants) {
                params.add(grant.name());
                params.add(grant.ownerId());
            }
            int updated;
            try (JdbcSession db = connections.open(false)) {
                updated = db.update(SqlTemplate.inList(sql.renewIn, 2, grants.size()), params.toArray());
            } catch (SQLException e) {
                throw failure(grants.get(0).name(), "renew", e);
            }
            if (updated == grants.size()) {
                Instant expiry = JdbcTime.expiry(lease);
                return grants.stream()
                        .map(grant -> Optional.of(grant.withExpiresAt(expiry)))
                        .toList();
            }
            // Some were lost: renew one by one to learn which (renewing one twice is harmless).
        }
        return grants.stream().map(grant -> renew(grant, leaseTime)).toList();
    }

    /** Deletes the permit of {@code ownerId}; whether it was still live. */
    boolean release(String name, String ownerId) {
        PermitStatements sql = ready(name);
        try (JdbcSession db = connections.open(false)) {
            int live = sql.notifies
                    ? db.all(sql.releaseLive, LockRows::countRows, name, ownerId)
                    : db.update(sql.releaseLive, name, ownerId);
            if (live == 0) {
                db.update(sql.deleteHolder, name, ownerId); // an expired leftover, if any
            }
            return live > 0;
        } catch (SQLException e) {
            throw failure(name, "release", e);
        }
    }

    /** Refuses every later call; the backend closes its connections itself. */
    void close() {
        gate.close();
    }

    PermitStatements ready(String name) {
        return gate.pass(name, () -> {
            Dialect dialect = strategyCheck.apply(name);
            try (JdbcSession db = connections.open(false)) {
                JdbcSchema.ensure(
                        db.connection,
                        JdbcSchema.ddl("permits", dialect, names),
                        Map.of(
                                names.semaphores(),
                                JdbcSchema.probe(names.semaphores()),
                                names.permits(),
                                JdbcSchema.probe(names.permits())),
                        createSchema,
                        connections.queryTimeoutSeconds,
                        "Baton semaphore '" + name + "' on " + backendName.get(),
                        e -> JdbcFailures.explain(e, connections.operationTimeout, names));
                return new PermitStatements(dialect, names);
            }
        });
    }

    LockUnavailableException failure(String name, String action, SQLException e) {
        return gate.failure(name, action, e);
    }
}
