package dev.baton.jdbc;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.jdbc.internal.ReconnectingPool;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.jdbc.pinned.PinningProtocol;
import dev.baton.jdbc.pinned.StatementWait;
import dev.baton.jdbc.row.BatchRenewal;
import dev.baton.jdbc.row.JdbcLine;
import dev.baton.jdbc.row.RowProtocol;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The JDBC lock backend for every strategy and database: lock grants go to one {@link JdbcProtocol}
 * per strategy and dialect, built once on first use ({@link ProtocolSetup}), permits to {@link
 * JdbcPermits}; see {@code docs/design/jdbc.md}.
 */
final class JdbcLockBackend implements LockBackend, JdbcLine.Backend {
    private final Strategy strategy;
    private final TableNames names;
    private final JdbcConnections connections;
    private final long retryWithinNanos;

    private final SchemaGate<JdbcProtocol> gate;
    private final ProtocolSetup setup;
    private final PgNotifications notifications;
    private final JdbcPermits permits;
    private final PermitHolders permitHolders;
    private final JdbcLine line;

    private final boolean fair;
    private final StatementWait waits;
    private final JdbcWaiting waiting;

    /** {@code dataSource} is null when the backend owns {@code ownedPool}; {@code dialect} null to detect. */
    JdbcLockBackend(
            Strategy strategy,
            DataSource dataSource,
            Dialect dialect,
            TableNames names,
            boolean createSchema,
            LockOptions options,
            ReconnectingPool ownedPool,
            boolean advisoryHolders) {
        this.strategy = strategy;
        this.names = names;
        Duration operationTimeout = options.operationTimeout();
        boolean handsOffFairly = options.fair() && strategy.handsOffFairly();
        this.retryWithinNanos = operationTimeout.toNanos() / 4;
        this.connections = new JdbcConnections(dataSource, ownedPool, operationTimeout);
        this.gate = new SchemaGate<>(this::name, "lock", operationTimeout, names, protocol -> ddl());
        this.waits = new StatementWait("baton-jdbc-wait", this::name, operationTimeout.toMillis());
        this.notifications =
                new PgNotifications(this::name, dataSource, ownedPool, operationTimeout, this::notifiesReleases);
        this.line = new JdbcLine(this, connections, notifications, operationTimeout);
        this.setup = new ProtocolSetup(
                strategy,
                createSchema,
                new JdbcProtocol.Context(
                        null,
                        names,
                        handsOffFairly,
                        advisoryHolders,
                        connections,
                        notifications,
                        waits,
                        line::handedHere,
                        this::name,
                        gate::isClosed,
                        gate::failure),
                dialect,
                gate);
        this.permits = new JdbcPermits(
                this::name,
                connections,
                names,
                createSchema,
                name -> {
                    setup.ready(name);
                    return setup.dialect();
                },
                notifications);
        this.permitHolders = new PermitHolders(permits, createSchema);
        this.fair = handsOffFairly;
        this.waiting = new JdbcWaiting(
                this,
                strategy.pinsConnections(),
                notifications,
                handsOffFairly ? line : null,
                ownedPool == null ? JdbcWaiting.PINNED_WITHOUT_OWN_POOL : ownedPool.maximumSize());
    }

    /** May run before {@code setup} is assigned. */
    private boolean notifiesReleases() {
        return setup == null ? strategy != Strategy.ADVISORY : setup.notifiesReleases();
    }

    /** For the message of a table dropped in use. */
    private String ddl() {
        return setup.ddl();
    }

    @Override
    public Dialect dialect() {
        return setup.dialect();
    }

    @Override
    public String name() {
        return setup == null ? strategy.backendName() : setup.name();
    }

    @Override
    public Waiting waiting(LockKind kind) {
        return waiting.of(kind);
    }

    @Override
    public boolean supportsPermits() {
        return true;
    }

    /**
     * Runs an attempt that failed fast on a broken connection (a restarted database) once more: that
     * connection reached no live server, so the second attempt is the request's first.
     */
    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        long start = System.nanoTime();
        try {
            return attempt(request);
        } catch (LockUnavailableException e) {
            // Only a quick failure: a second wait for a connection must not double the bound.
            if (!JdbcFailures.causedByBrokenConnection(e) || System.nanoTime() - start > retryWithinNanos) {
                throw e;
            }
            return attempt(request);
        }
    }

    private Optional<Grant> attempt(LockRequest request) {
        if (JdbcPermits.isPermit(request)) {
            return permits.tryAcquire(request);
        }
        // Fair: a grant the release handed to this attempt is taken without asking the database.
        return fair
                ? line.tryAcquire(request, r -> ready(r).tryAcquire(r))
                : ready(request).tryAcquire(request);
    }

    /** The protocol for a new attempt; an attempt that fails here is known to have sent nothing. */
    JdbcProtocol ready(LockRequest request) {
        connections.attemptStarts();
        if (strategy == Strategy.ADVISORY && setup.dialect() == Dialect.MARIADB) {
            PinningProtocol.requireExclusive(request, name()); // before any I/O
        }
        try {
            return setup.ready(request.name());
        } catch (RuntimeException e) {
            connections.unsent(request);
            throw e;
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.renew(grant, leaseTime);
        }
        return protocolOf(grant).renew(grant, leaseTime);
    }

    @Override
    public int renewalBatchSize() {
        return strategy.batchesRenewals() ? BatchRenewal.SIZE : 1;
    }

    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return permits.renewAll(
                grants, leaseTime, strategy.batchesRenewals() ? this::renewRows : LockBackend.super::renewAll);
    }

    private List<Optional<Grant>> renewRows(List<Grant> grants, Duration leaseTime) {
        return grants.isEmpty()
                ? List.of()
                : ((RowProtocol) setup.ready(grants.get(0).name())).renewAll(grants, leaseTime);
    }

    @Override
    public boolean release(Grant grant) {
        if (JdbcPermits.isPermit(grant)) {
            return permits.release(grant.name(), grant.ownerId());
        }
        return protocolOf(grant).release(grant).held();
    }

    /** A pinned grant's protocol took it, with no check of the schema (its session is the lease). */
    private JdbcProtocol protocolOf(Grant grant) {
        JdbcProtocol pinned = PinningProtocol.of(grant);
        return pinned != null ? pinned : setup.ready(grant.name());
    }

    /**
     * Releases what an attempt may have left, by owner id; nothing for an attempt that sent nothing,
     * or of a pinned strategy's lock (it ended its own transaction or session).
     */
    @Override
    public void abandon(LockRequest request) {
        if (connections.wasUnsent(request)) {
            return;
        }
        if (JdbcPermits.isPermit(request)) {
            permits.release(request.name(), request.ownerId());
        } else if (!strategy.pinsConnections()) {
            setup.ready(request.name()).abandon(request);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return setup.ready(name).inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix) {
        List<LockInfo> all =
                new ArrayList<>(setup.ready(prefix.isEmpty() ? "*" : prefix).list(prefix));
        all.addAll(permitHolders.list(prefix));
        all.sort(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::kind));
        return all;
    }

    @Override
    public String listingMethod() {
        return strategy.listingMethod(names);
    }

    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        List<LockInfo> broken = new ArrayList<>(setup.ready(name).forceRelease(name, ownerId));
        broken.addAll(permitHolders.forceRelease(name, ownerId));
        return broken;
    }

    @Override
    public void close() {
        if (!gate.close()) {
            return;
        }
        permits.close();
        notifications.close();
        line.close();
        waits.close();
        connections.closeOwnedPool(name());
    }

    /** For tests: the pool this backend built and closes, or null. */
    ReconnectingPool ownedPool() {
        return connections.ownedPool;
    }

    @Override
    public RowProtocol rows(LockRequest request) {
        return (RowProtocol) ready(request);
    }
}
