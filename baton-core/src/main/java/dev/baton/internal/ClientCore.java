package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Leadership;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockException;
import dev.baton.LockKind;
import dev.baton.LockListener.AcquireOutcome;
import dev.baton.LockMode;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockNames;
import dev.baton.spi.LockRequest;
import dev.baton.spi.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client every backend shares: reentrancy, the local gate, waiting, renewal and clean-up. A
 * backend only supplies the wire protocol ({@link LockBackend}).
 */
final class ClientCore implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(ClientCore.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    final LockBackend backend;
    final Ticker ticker;
    final RenewalTimer renewals;
    final LockEvents events;
    private final LeaseRenewer renewer;
    private final LockOptions options;
    final ReleaseHints hints;
    final WaitThreads waits;
    private final Acquisitions acquisitions;
    private final ConcurrentHashMap<LocalLockState.Key, LocalLockState> states = new ConcurrentHashMap<>();
    private final Set<HeldGrant> held = ConcurrentHashMap.newKeySet();
    private final Set<LeaderCandidate> candidates = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** A client on the system clock; made through {@link Clients#open}. */
    ClientCore(LockBackend backend, LockOptions options) {
        this(backend, options, Ticker.SYSTEM);
    }

    ClientCore(LockBackend backend, LockOptions options, Ticker ticker) {
        this.backend = backend;
        this.options = options;
        this.ticker = ticker;
        this.hints = new ReleaseHints(backend.name(), this::isClosed);
        this.events = new LockEvents(backend.name(), options.listeners());
        int number = CLIENTS.incrementAndGet();
        String threadName = "baton-renewal-" + number;
        this.renewer = new LeaseRenewer(threadName, backend, ticker, events);
        this.renewals = new RenewalTimer(threadName, ticker, renewer);
        this.waits = new WaitThreads("baton-" + number);
        this.acquisitions = new Acquisitions(this);
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, options);
    }

    @Override
    public DistributedLock lock(String name, LockOptions lockOptions) {
        return new LockHandle(this, LockNames.validate(name, backend.name()), LockKind.MUTEX, check(lockOptions));
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        return readWriteLock(name, options);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions lockOptions) {
        String valid = LockNames.validate(name, backend.name());
        LockOptions checked = check(lockOptions);
        return new ReadWriteHandle(
                valid,
                new LockHandle(this, valid, LockKind.READ, checked),
                new LockHandle(this, valid, LockKind.WRITE, checked));
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        return semaphore(name, permits, options);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions semaphoreOptions) {
        String valid = LockNames.validate(name, backend.name());
        LockOptions checked = check(semaphoreOptions);
        if (permits < 1) {
            throw new LockConfigurationException("Baton semaphore '" + valid + "' on " + backend.name()
                    + ": the number of permits must be at least 1 but was " + permits);
        }
        if (!backend.supportsPermits()) {
            throw new LockConfigurationException("Baton semaphore '" + valid + "' on " + backend.name()
                    + ": this backend has no semaphores (Redlock and Azure Blob have none); use JDBC, Redis (one server,"
                    + " Sentinel or Cluster), ZooKeeper or etcd for semaphores, or a lock");
        }
        return new SemaphoreHandle(new LockHandle(this, valid, LockKind.PERMIT, checked, permits));
    }

    @Override
    public DistributedLock multiLock(String... names) {
        if (names == null) {
            throw new LockConfigurationException(
                    "Baton multi-lock on " + backend.name() + ": the names must not be null; give one or more");
        }
        return multiLock(Arrays.asList(names), options);
    }

    @Override
    public DistributedLock multiLock(Collection<String> names, LockOptions lockOptions) {
        LockOptions checked = check(lockOptions);
        List<String> ordered = MultiLockHandle.canonicalNames(names, backend.name());
        List<DistributedLock> members = new ArrayList<>(ordered.size());
        for (String name : ordered) {
            members.add(new LockHandle(this, name, LockKind.MUTEX, checked));
        }
        return new MultiLockHandle(members, backend.name(), ticker, waits);
    }

    @Override
    public Leadership leadership(String name) {
        return leadership(name, options);
    }

    @Override
    public Leadership leadership(String name, LockOptions leaderOptions) {
        return LeaderCandidate.of(this, LockNames.validate(name, backend.name()), check(leaderOptions));
    }

    /** A candidacy started: closed with the client. Refused once the client is closed. */
    void leadershipStarted(LeaderCandidate candidate) {
        candidates.add(candidate);
        if (closed) {
            candidates.remove(candidate);
            checkOpen();
        }
    }

    void leadershipEnded(LeaderCandidate candidate) {
        candidates.remove(candidate);
    }

    private LockOptions check(LockOptions lockOptions) {
        if (lockOptions == null) {
            throw new LockConfigurationException(
                    "Baton client for " + backend.name() + ": lock options must not be null; use client.options()");
        }
        return lockOptions;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public String backendName() {
        return backend.name();
    }

    /**
     * The hold of {@code thread} on (name, mode), or null. Holds, reentrancy and the local gate go by
     * mode, not kind: a thread that holds {@code lock(name)} and takes {@code
     * readWriteLock(name).writeLock()} re-enters its grant instead of queueing behind itself on the
     * backend, and the threads of one client wait for either exclusive kind at the one local gate.
     */
    HeldGrant holdOf(String name, LockMode mode, Thread thread) {
        LocalLockState state = states.get(new LocalLockState.Key(name, mode, 0));
        return state == null ? null : state.holderOf(thread);
    }

    /** See {@link Acquisitions#acquire}. */
    Optional<LeaseHandle> acquire(LockHandle lock, long timeoutNanos, boolean interruptible)
            throws InterruptedException {
        return acquisitions.acquire(lock, timeoutNanos, interruptible, null);
    }

    /** As {@link #acquire(LockHandle, long, boolean)}, throwing {@link dev.baton.LockTimeoutException} on timeout. */
    LeaseHandle acquireOrThrow(LockHandle lock, long timeoutNanos, Duration timeout) throws InterruptedException {
        return acquisitions.acquire(lock, timeoutNanos, true, timeout).orElseThrow();
    }

    /** See {@link Acquisitions#acquireAsync}. */
    CompletableFuture<Lease> acquireAsync(LockHandle lock, long timeoutNanos, Duration timeout) {
        return acquisitions.acquireAsync(lock, timeoutNanos, timeout);
    }

    /** Refuses to take one side of a read/write lock while the thread holds the other. */
    void checkReentry(LockHandle lock, Thread thread) {
        LockMode other = lock.mode() == LockMode.SHARED ? LockMode.EXCLUSIVE : LockMode.SHARED;
        if (holdOf(lock.name(), other, thread) != null) {
            throw new LockException(
                    "Baton lock '" + lock.name() + "' on " + backend.name() + ": the current thread holds the "
                            + (other == LockMode.SHARED ? "read" : "write") + " lock; taking the "
                            + (other == LockMode.SHARED ? "write" : "read")
                            + " lock as well would wait for itself. Release it first");
        }
    }

    Waiting waiting(LockKind kind) {
        return acquisitions.waiting(kind);
    }

    LockRequest request(LockHandle lock, Thread caller) {
        return acquisitions.request(lock, caller);
    }

    void releaseLate(LockHandle lock, Grant grant, long elapsedNanos, long validityNanos, boolean again) {
        acquisitions.releaseLate(lock, grant, elapsedNanos, validityNanos, again);
    }

    void releaseUnwanted(LockHandle lock, Grant grant) {
        acquisitions.releaseUnwanted(lock, grant);
    }

    void acquisitionEnded(Acquisition acquisition) {
        acquisitions.ended(acquisition);
    }

    /**
     * Holds a grant: for {@code thread}'s reentrant holds when it is not null, else as a lease of its
     * own (a permit, an asynchronous acquisition).
     */
    HeldGrant hold(
            LocalLockState local,
            LockHandle lock,
            Thread thread,
            Grant grant,
            long sentAt,
            LockEvents.Attempt attempt) {
        HeldGrant hold = new HeldGrant(this, local, lock.options(), thread, grant, sentAt, attempt);
        if (thread != null) {
            local.addHolder(hold);
        }
        // Reported before the grant is in `held`: a concurrent close() cannot release it (and report
        // leaseReleased) before its ACQUIRED; a listener may already re-enter the lock on this thread.
        attempt.granted(grant.fencingToken());
        attempt.end(AcquireOutcome.ACQUIRED);
        held.add(hold);
        if (closed) {
            hold.forceRelease();
            checkOpen();
        }
        renewals.scheduleFirst(hold);
        if (log.isDebugEnabled()) {
            log.debug("{}: acquired (token {})", hold.describe(), grant.fencingToken());
        }
        return hold;
    }

    /** Called once per grant after it was released on the backend (or the attempt failed). */
    void grantReleased(HeldGrant hold) {
        held.remove(hold);
        LocalLockState local = hold.local;
        if (local.gated()) {
            local.gate.release();
        }
        local.wakeWaiters();
        unretain(local);
    }

    LocalLockState retain(LocalLockState.Key lockKey) {
        return states.compute(lockKey, (key, existing) -> {
            LocalLockState state = existing == null ? new LocalLockState(key) : existing;
            state.users++;
            return state;
        });
    }

    void unretain(LocalLockState local) {
        states.computeIfPresent(local.key(), (key, existing) -> {
            if (existing != local) {
                return existing;
            }
            return --existing.users == 0 ? null : existing;
        });
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw closedException();
        }
    }

    LockUnavailableException closedException() {
        return new LockUnavailableException("Baton client for " + backend.name()
                + " is closed; create a new client with Baton.connect to take locks again");
    }

    /**
     * @param cause why no grant came when it was not a holder ({@link Acquisition#timeoutCause}); null
     *     when the backend answered that the lock (or every permit) is held
     */
    String timeoutMessage(LockHandle lock, Duration timeout, String cause) {
        if (cause != null) {
            return lock.describe() + ": not acquired within " + timeout + ": " + cause;
        }
        return lock.describe() + ": not acquired within " + timeout
                + (lock.permits() > 0
                        ? " because other owners hold every permit; retry later or wait longer"
                        : " because another owner holds it; retry later or wait longer");
    }

    /** Number of grants this client currently holds (for tests and diagnostics). */
    int heldGrantCount() {
        return held.size();
    }

    /** Whether no renewal call is running or queued (see {@link LeaseRenewer#idle()}); for tests. */
    boolean renewalsIdle() {
        return renewer.idle();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (LeaderCandidate candidate : List.copyOf(candidates)) {
            candidate.close(); // resigns: the listeners hear it before the lease goes
        }
        List<HeldGrant> toRelease = List.copyOf(held);
        for (HeldGrant hold : toRelease) {
            hold.forceRelease();
        }
        acquisitions.closeAll(); // each leaves the gate and the backend's line, then fails as closed
        long waitMillis = options.operationTimeout().toMillis() + 1000;
        if (!renewals.stop(waitMillis) | !renewer.stop(waitMillis) | !waits.stop(waitMillis)) {
            log.warn("Baton client for {}: renewal threads did not stop in time", backend.name());
        }
        try {
            backend.close();
        } catch (RuntimeException e) {
            log.warn("Baton client for {}: closing the backend failed", backend.name(), e);
        }
        if (!toRelease.isEmpty()) {
            log.info("Baton client for {} closed; released {} held lease(s)", backend.name(), toRelease.size());
        }
    }

    @Override
    public String toString() {
        return "LockClient[" + backend.name() + (closed ? ", closed" : "") + "]";
    }
}
