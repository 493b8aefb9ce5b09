package dev.baton.jdbc;

import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockInfo;
import dev.baton.spi.LockKind;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
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
 * backend; every call goes to it from then on. Both implementations queue lock waiters; permit
 * waiters poll ({@link JdbcPermits}).
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

    /** Forwards to the implementation's notifications once it is known (see {@link #releaseNotifications()}). */
    private final ReleaseNotifications notifications = new ReleaseNotifications() {
        @Override
        public Subscription subscribe(String name, Runnable onRelease) {
            LockBackend known = delegate;
            return known == null ? () -> {} : known.releaseNotifications().subscribe(name, onRelease);
        }

        @Override
        public Subscription subscribe(LockRequest request, Runnable onRelease) {
            LockBackend known = delegate;
            return known == null ? () -> {} : known.releaseNotifications().subscribe(request, onRelease);
        }

        @Override
        public boolean supported() {
            LockBackend known = delegate;
            return known != null && known.releaseNotifications().supported();
        }
    };

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

    /** Permit waiters poll on both implementations ({@link JdbcPermits}). */
    @Override
    public boolean queuesWaiters(LockKind kind) {
        return kind != LockKind.PERMIT;
    }

    /** Both implementations keep permits in tables of their own ({@link JdbcPermits}). */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /**
     * The implementation's notifications once the database is known (permit waiters use them; the
     * first attempt detects it); until then none. The same instance on every call, as the SPI asks.
     */
    @Override
    public ReleaseNotifications releaseNotifications() {
        return notifications;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException {
        return delegate(request.name()).acquire(request, timeoutNanos);
    }

    @Override
    public void checkExtension(String lock, Duration leaseTime, Duration extension) {
        delegate(lock).checkExtension(lock, leaseTime, extension);
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
