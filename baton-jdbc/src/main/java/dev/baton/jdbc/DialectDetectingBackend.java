package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A strategy whose implementation differs per database (advisory: PostgreSQL advisory locks or
 * MariaDB named locks), over an application's {@link DataSource}, whose database is only known once
 * a connection was made. The first operation detects the database (and fails with {@link
 * dev.baton.LockConfigurationException} when the strategy does not support it) and builds the real
 * backend; every call goes to it from then on. Both implementations queue waiters.
 */
final class DialectDetectingBackend implements LockBackend {
    private final Strategy strategy;
    private final DataSource dataSource;
    private final Duration operationTimeout;
    private final TableNames names;
    private final Function<Dialect, LockBackend> factory;
    private final ReentrantLock setup = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile LockBackend delegate;

    DialectDetectingBackend(
            Strategy strategy,
            DataSource dataSource,
            Duration operationTimeout,
            TableNames names,
            Function<Dialect, LockBackend> factory) {
        this.strategy = strategy;
        this.dataSource = dataSource;
        this.operationTimeout = operationTimeout;
        this.names = names;
        this.factory = factory;
    }

    @Override
    public String name() {
        LockBackend known = delegate;
        return known == null ? strategy.backendName() : known.name();
    }

    private LockBackend delegate(String lockName) {
        LockBackend known = delegate;
        if (known != null) {
            return known;
        }
        setup.lock();
        try {
            if (closed.get()) {
                throw new LockUnavailableException("Baton lock '" + lockName + "' on " + name()
                        + ": the backend is closed; create a new client to take locks again");
            }
            if (delegate == null) {
                try (JdbcSession db = JdbcSession.open(
                        dataSource, null, TableLockBackend.queryTimeoutSeconds(operationTimeout), false)) {
                    delegate = factory.apply(OptimisticLockBackend.detect(db, lockName, strategy));
                } catch (SQLException e) {
                    throw new LockUnavailableException(
                            "Baton lock '" + lockName + "' on " + name() + ": detecting the database failed: "
                                    + JdbcFailures.explain(e, operationTimeout, names),
                            e);
                }
            }
            return delegate;
        } finally {
            setup.unlock();
        }
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        return delegate(request.name()).tryAcquire(request);
    }

    @Override
    public boolean queuesWaiters() {
        return true;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        return delegate(request.name()).acquire(request, timeoutNanos);
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return delegate(grant.name()).renew(grant, leaseTime);
    }

    @Override
    public boolean release(Grant grant) {
        return delegate(grant.name()).release(grant);
    }

    @Override
    public void abandon(LockRequest request) {
        LockBackend known = delegate;
        if (known != null) {
            known.abandon(request);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return delegate(name).inspect(name);
    }

    @Override
    public void close() {
        setup.lock();
        try {
            closed.set(true);
            if (delegate != null) {
                delegate.close();
            }
        } finally {
            setup.unlock();
        }
    }
}
