package dev.baton.internal;

import dev.baton.DistributedLock;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LeadershipListener.Reason;
import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.LockKind;
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
 * One candidacy ({@link Leadership}): a thread that waits for the lock, leads while the lease holds,
 * and joins again after a loss, until closed.
 *
 * <p>Each term is one lease. The term ends when the lease's {@code onLost} fires (told on the
 * client's timer or renewal thread, which only completes {@code ended}) or when the candidacy is
 * closed (which completes it with null). Leadership itself is read from the lease ({@link
 * Lease#isValid()}), never from a flag that a loss report has to clear, so a pause that outlasts the
 * lease ends leadership by the clock alone.
 *
 * <p>Interrupts: {@link #close()} interrupts the campaign thread only while it waits for the lock or
 * backs off (under {@code state}, with no term open), never while it holds a lease, so that the
 * release on the backend is not disturbed by an interrupt.
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

    private Thread campaign;
    private boolean started;
    private volatile boolean closed;
    /** The lease of the current term, or null between terms. */
    private volatile Lease term;
    /** Completed when the current term ends: with the loss, or with null for a resignation. */
    private CompletableFuture<LockLostException> termEnded;
    /** Whether close() was called on the listener thread, which then must not wait for listeners. */
    private boolean closedByListener;

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
            campaign = new Thread(this::campaign, threadName);
            campaign.setDaemon(true);
            campaign.start();
        } finally {
            state.unlock();
        }
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

    private void campaign() {
        Backoff backoff = newBackoff();
        try {
            while (!closed) {
                Lease lease;
                try {
                    lease = lock.acquire();
                } catch (RuntimeException e) {
                    if (closed) {
                        break;
                    }
                    long pause = backoff.nextPauseNanos();
                    log.warn(
                            "{}: could not stand for election, trying again in {} ms: {}",
                            describe,
                            TimeUnit.NANOSECONDS.toMillis(pause),
                            e.toString());
                    backOff(pause);
                    continue;
                }
                backoff = newBackoff();
                lead(lease);
            }
        } finally {
            client.leadershipEnded(this);
        }
    }

    private Backoff newBackoff() {
        Duration initial = options.pollMaxDelay().compareTo(options.leaseTime()) < 0
                ? options.pollMaxDelay()
                : options.leaseTime();
        return new Backoff(initial, options.leaseTime());
    }

    /** Waits {@code nanos}, or until closed. */
    private void backOff(long nanos) {
        state.lock();
        try {
            long left = nanos;
            while (!closed && left > 0) {
                left = changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            // close() interrupts only to end the candidacy
        } finally {
            state.unlock();
        }
    }

    /** One term: announce, wait for its end, tell, release. */
    private void lead(Lease lease) {
        CompletableFuture<LockLostException> ended = new CompletableFuture<>();
        boolean resigned;
        state.lock();
        try {
            Thread.interrupted(); // only close() interrupts this thread, and it is handled below
            resigned = closed;
            if (!resigned) {
                term = lease;
                termEnded = ended;
                changed.signalAll();
            }
        } finally {
            state.unlock();
        }
        if (resigned) {
            lease.close();
            return;
        }
        long epoch = lease.fencingToken();
        log.info("{}: elected, epoch {}", describe, epoch);
        events.elected(epoch);
        lease.onLost(ended::complete); // called at once if the lease was lost already
        LockLostException lost = ended.join();
        boolean byListener;
        state.lock();
        try {
            term = null;
            termEnded = null;
            byListener = closedByListener;
        } finally {
            state.unlock();
        }
        if (lost != null) {
            log.warn("{}: leadership of epoch {} revoked, standing again: {}", describe, epoch, lost.getMessage());
            // Told before the lost grant is tidied up: that waits for a renewal call still in flight.
            events.revoked(epoch, Reason.LOST, lost);
            lease.close(); // never throws for a lost lease
            return;
        }
        CompletableFuture<Void> told = events.revoked(epoch, Reason.RESIGNED, null);
        if (!byListener) {
            // The listeners stop leader work before the lease goes: once released, another candidate
            // is elected at once. The lease is still renewed meanwhile; a listener that takes longer
            // than a lease time is not waited for.
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
        Thread.interrupted();
        lease.close();
        log.info("{}: resigned epoch {}", describe, epoch);
    }

    @Override
    public void close() {
        Thread toJoin;
        state.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            closedByListener = events.onListenerThread();
            toJoin = campaign;
            if (termEnded != null) {
                termEnded.complete(null);
            } else if (toJoin != null) {
                toJoin.interrupt(); // waiting for the lock or backing off: nothing held
            }
            changed.signalAll();
        } finally {
            state.unlock();
        }
        long waitMillis =
                options.leaseTime().toMillis() + 2 * options.operationTimeout().toMillis() + 1000;
        if (toJoin != null && toJoin != Thread.currentThread()) {
            try {
                toJoin.join(waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (toJoin.isAlive()) {
                log.warn("{}: the candidate's thread did not end within {} ms", describe, waitMillis);
            }
        } else if (toJoin == null) {
            client.leadershipEnded(this);
        }
        if (!events.shutdown(waitMillis)) {
            log.warn("{}: leadership listeners still run after {} ms", describe, waitMillis);
        }
    }

    /** The candidate thread's name; its listener thread's is this plus {@code -listener}. For tests. */
    String threadName() {
        return threadName;
    }

    @Override
    public String toString() {
        return "Leadership[" + name() + ", " + client.backendName() + (isLeader() ? ", leader" : "")
                + (closed ? ", closed" : "") + "]";
    }
}
