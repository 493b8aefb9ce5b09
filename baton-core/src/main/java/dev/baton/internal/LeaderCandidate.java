package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LeadershipListener.Reason;
import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidacy ({@link Leadership}): an asynchronous acquisition of the lock, a term while the lease
 * holds, and a new acquisition after a loss, until closed. No thread waits for the lock on the
 * candidacy's behalf: the acquisition is an entry in the backend's line or in the client's timer,
 * and the steps below run on the Baton thread that completes it (they never block). The listener
 * worker ({@link LeadershipEvents}) exists only while it has events to deliver.
 *
 * <p>Each term is one lease. The term ends when the lease's {@code onLost} fires (told on the
 * client's timer or renewal thread) or when the candidacy is closed. Leadership itself is read from
 * the lease ({@link Lease#isValid()}), never from a flag that a loss report has to clear, so a pause
 * that outlasts the lease ends leadership by the clock alone.
 *
 * <p>Locking: {@code state} guards the term, the acquisition in progress and {@code closed}, and is
 * never held across I/O or a listener.
 */
final class LeaderCandidate implements Leadership {
    private static final Logger log = LoggerFactory.getLogger(LeaderCandidate.class);
    private static final AtomicInteger CANDIDATES = new AtomicInteger();

    private final ClientCore client;
    private final DistributedLock lock;
    private final LockOptions options;
    private final String describe;
    private final LeadershipEvents events;
    private final ReentrantLock state = new ReentrantLock();
    private final Condition changed = state.newCondition();
    private final String threadName;

    private boolean started;
    private volatile boolean closed;
    /** The lease of the current term, or null between terms. */
    private volatile Lease term;
    /** The acquisition in progress between terms, or null. */
    private CompletableFuture<Lease> standing;

    private Backoff backoff;

    /** A candidacy for {@code name} (already validated) with {@code options}; refuses options without renewal. */
    static LeaderCandidate of(ClientCore client, String name, LockOptions options) {
        if (!options.autoRenew()) {
            throw new LockConfigurationException("Baton leadership '" + name + "' on " + client.backendName()
                    + ": auto-renewal is off in the options, but a leader's lease must be renewed; leave"
                    + " autoRenew on for leader election");
        }
        client.checkOpen();
        return new LeaderCandidate(client, new LockHandle(client, name, LockKind.MUTEX, options), options);
    }

    private LeaderCandidate(ClientCore client, DistributedLock lock, LockOptions options) {
        this.client = client;
        this.lock = lock;
        this.options = options;
        this.describe = "Baton leadership '" + lock.name() + "' on " + client.backendName();
        this.threadName = "baton-leader-" + CANDIDATES.incrementAndGet();
        this.events = new LeadershipEvents(describe, threadName + "-listener");
        this.backoff = newBackoff();
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public Leadership start() {
        state.lock();
        try {
            if (closed) {
                throw new IllegalStateException(describe + ": the candidacy is closed; make a new one with"
                        + " client.leadership(name) to stand again");
            }
            if (started) {
                return this;
            }
            client.leadershipStarted(this);
            started = true;
        } finally {
            state.unlock();
        }
        stand();
        return this;
    }

    @Override
    public boolean isLeader() {
        Lease lease = term;
        return lease != null && !closed && lease.isValid();
    }

    @Override
    public OptionalLong epoch() {
        Lease lease = term;
        return lease != null && !closed && lease.isValid()
                ? OptionalLong.of(lease.fencingToken())
                : OptionalLong.empty();
    }

    @Override
    public boolean awaitLeadership(Duration timeout) throws InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException(describe + ": the timeout must be zero or positive but was " + timeout);
        }
        long deadline = System.nanoTime() + LockHandle.timeoutNanos(timeout, describe);
        state.lock();
        try {
            while (!isLeader()) {
                long left = deadline - System.nanoTime();
                if (closed || left <= 0) {
                    return false;
                }
                // Woken when a term begins or the candidacy closes; looked at again every 100 ms too,
                // as a term may begin already lost.
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return true;
        } finally {
            state.unlock();
        }
    }

    @Override
    public Leadership addListener(LeadershipListener listener) {
        if (listener == null) {
            throw new NullPointerException(describe + ": the listener must not be null");
        }
        events.add(listener);
        return this;
    }

    /** Asks for the lock, without waiting for it here. */
    private void stand() {
        CompletableFuture<Lease> acquiring;
        state.lock();
        try {
            if (closed) {
                return;
            }
            try {
                acquiring = lock.acquireAsync();
            } catch (RuntimeException e) {
                acquiring = CompletableFuture.failedFuture(e);
            }
            standing = acquiring;
        } finally {
            state.unlock();
        }
        acquiring.whenComplete(this::acquired);
    }

    private void acquired(Lease lease, Throwable failure) {
        if (failure != null) {
            long pause;
            state.lock();
            try {
                standing = null;
                if (closed) {
                    return;
                }
                pause = backoff.nextPauseNanos();
            } finally {
                state.unlock();
            }
            log.warn(
                    "{}: could not stand for election, trying again in {} ms: {}",
                    describe,
                    TimeUnit.NANOSECONDS.toMillis(pause),
                    failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                            ? failure.getCause().toString()
                            : failure.toString());
            try {
                client.waits.schedule(this::stand, pause);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                log.debug("{}: the client is closing; not standing again", describe);
            }
            return;
        }
        boolean resigned;
        state.lock();
        try {
            standing = null;
            resigned = closed;
            if (!resigned) {
                term = lease;
                backoff = newBackoff();
                // Queued before anyone can see the term: a close() that follows awaitLeadership()
                // then queues its revocation after this, never before it.
                events.elected(lease.fencingToken());
                changed.signalAll();
            }
        } finally {
            state.unlock();
        }
        if (resigned) {
            lease.releaseAsync();
            return;
        }
        long epoch = lease.fencingToken();
        log.info("{}: elected, epoch {}", describe, epoch);
        lease.onLost(lost -> lost(lease, epoch, lost)); // called at once if the lease was lost already
    }

    /** The term's lease was lost (on a Baton thread that must not block): revoke, release, stand again. */
    private void lost(Lease lease, long epoch, LockLostException cause) {
        state.lock();
        try {
            if (term != lease) {
                return; // resigned meanwhile
            }
            term = null;
        } finally {
            state.unlock();
        }
        log.warn("{}: leadership of epoch {} revoked, standing again: {}", describe, epoch, cause.getMessage());
        events.revoked(epoch, Reason.LOST, cause);
        // The lost grant keeps this client's gate until it is tidied up, so stand once it is.
        lease.releaseAsync().whenComplete((ignored, failure) -> stand());
    }

    private Backoff newBackoff() {
        Duration initial = options.pollMaxDelay().compareTo(options.leaseTime()) < 0
                ? options.pollMaxDelay()
                : options.leaseTime();
        return new Backoff(initial, options.leaseTime());
    }

    @Override
    public void close() {
        Lease resigning;
        CompletableFuture<Lease> acquiring;
        boolean byListener;
        state.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            byListener = events.onListenerThread();
            resigning = term;
            term = null;
            acquiring = standing;
            standing = null;
            changed.signalAll();
        } finally {
            state.unlock();
        }
        if (acquiring != null) {
            acquiring.cancel(false); // a grant on its way is released
        }
        long waitMillis =
                options.leaseTime().toMillis() + 2 * options.operationTimeout().toMillis() + 1000;
        if (resigning != null) {
            resign(resigning, byListener);
        }
        if (started) {
            client.leadershipEnded(this);
        }
        if (!events.shutdown(waitMillis)) {
            log.warn("{}: leadership listeners still run after {} ms", describe, waitMillis);
        }
    }

    /**
     * Ends the term: the listeners stop leader work before the lease goes, since once it is released
     * another candidate is elected at once. The lease is still renewed meanwhile; a listener that takes
     * longer than a lease time is not waited for, nor is one that closes the candidacy itself.
     */
    private void resign(Lease lease, boolean byListener) {
        long epoch = lease.fencingToken();
        CompletableFuture<Void> told = events.revoked(epoch, Reason.RESIGNED, null);
        if (!byListener) {
            try {
                told.get(options.leaseTime().toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                log.warn("{}: revoked listeners still run after {}; releasing anyway", describe, options.leaseTime());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException e) {
                // not completed exceptionally
            }
        }
        lease.close();
        log.info("{}: resigned epoch {}", describe, epoch);
    }

    /** The candidacy's name for its threads: its listener worker is this plus {@code -listener}. For tests. */
    String threadName() {
        return threadName;
    }

    @Override
    public String toString() {
        return "Leadership[" + name() + ", " + client.backendName() + (isLeader() ? ", leader" : "")
                + (closed ? ", closed" : "") + "]";
    }
}
