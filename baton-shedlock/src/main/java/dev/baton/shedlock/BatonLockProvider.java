package dev.baton.shedlock;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link LockProvider} backed by a Baton {@link LockClient}: {@code @SchedulerLock} tasks
 * switch to any Baton backend by swapping one bean, {@code new BatonLockProvider(client)}.
 *
 * <p>Semantics, lock by lock:
 *
 * <ul>
 *   <li><b>lockAtMostFor</b> is the lease time of a Baton lease acquired with auto-renewal
 *       <em>off</em> ({@link LockClient#lock(String, LockOptions)} with the client's options, {@code
 *       leaseTime = lockAtMostFor}, {@code autoRenew = false}). A holder that dies, hangs or never
 *       unlocks frees the lock on the backend after lockAtMostFor, counted by the backend's clock.
 *   <li><b>Never waits.</b> A lock held elsewhere (another process, another client, another thread
 *       or a task of this provider that has not been released yet) gives {@link Optional#empty()} at
 *       once, as ShedLock expects.
 *   <li><b>lockAtLeastFor</b>: {@link SimpleLock#unlock()} before lockAtLeastFor has elapsed (counted
 *       with this JVM's monotonic clock from the start of {@link #lock}, which is never earlier than
 *       ShedLock's own {@code createdAt}) does not release at once: the release is scheduled on a
 *       single daemon thread that this provider owns. If the JVM dies meanwhile, the lease ends on the
 *       backend at lockAtMostFor, so the lock is never freed earlier than ShedLock would free it.
 *   <li><b>extend</b> ({@link SimpleLock#extend}, ShedLock's {@code LockExtender.extendActiveLock})
 *       calls {@link Lease#extend}: the lease then ends on the backend the new lockAtMostFor after
 *       the call (not added to what was left), and the new lockAtLeastFor counts from the call. The
 *       extended lock is a new {@link SimpleLock}; the one extended can no longer be unlocked or
 *       extended. A lease already lost (lockAtMostFor ran out, or the backend no longer has it) gives
 *       {@link Optional#empty()}, as ShedLock expects; a lockAtMostFor the backend cannot serve (Azure
 *       Blob: 15 s up to the lockAtMostFor the lock was taken with; etcd: at most that in whole
 *       seconds) throws {@link LockConfigurationException} and leaves the lock as it was.
 * </ul>
 *
 * <p>Failures are passed through, not hidden: a name Baton refuses (empty, over 512 UTF-8 bytes,
 * control characters) or a lockAtMostFor outside the backend's lease limits (Azure Blob leases: 15 s
 * to 60 s) throws {@link LockConfigurationException} naming the lock, lockAtMostFor, the backend and
 * the fix; an unreachable backend throws Baton's {@code LockUnavailableException}. ShedLock then
 * skips the run and logs it.
 *
 * <p>{@link #close()} stops the release thread. Releases still waiting for their lockAtLeastFor are
 * not run early: those leases end on the backend at their lockAtMostFor, or when the {@link
 * LockClient} is closed (which releases every lease the client still holds). The provider never
 * closes the client it was given.
 */
public final class BatonLockProvider implements ExtensibleLockProvider, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BatonLockProvider.class);
    private static final AtomicInteger PROVIDERS = new AtomicInteger();

    private final LockClient client;
    private final ConcurrentHashMap<String, Held> held = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor releases;

    /**
     * A provider over {@code client}, which stays owned (and closed) by the caller.
     *
     * @param client the client whose locks the provider takes, each with {@code lockAtMostFor} as its
     *     lease time and without auto-renewal; the provider never closes it
     * @throws NullPointerException if {@code client} is null
     */
    public BatonLockProvider(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
        int id = PROVIDERS.incrementAndGet();
        this.releases = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "baton-shedlock-release-" + id);
            thread.setDaemon(true);
            return thread;
        });
        releases.setRemoveOnCancelPolicy(true);
        releases.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Acquires {@code configuration.getName()} for at most lockAtMostFor if it is free now.
     *
     * @return the held lock, or empty if it is held elsewhere
     * @throws LockConfigurationException if Baton refuses the name or lockAtMostFor on this backend
     * @throws IllegalStateException if this provider is closed
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        if (releases.isShutdown()) {
            throw new IllegalStateException("BatonLockProvider over " + client.backendName()
                    + " is closed: lock '" + configuration.getName()
                    + "' was not attempted; create a new provider");
        }
        long startNanos = System.nanoTime();
        String name = configuration.getName();
        Held mine = new Held(name, startNanos, configuration.getLockAtLeastFor());
        while (true) {
            Held existing = held.putIfAbsent(name, mine);
            if (existing == null) {
                break;
            }
            if (existing.stillHeld()) {
                return Optional.empty();
            }
            // Its lease ran out (lockAtMostFor) while the task never unlocked: let it go locally.
            existing.release();
        }
        try {
            DistributedLock lock = client.lock(name, optionsFor(configuration));
            Optional<Lease> lease = lock.tryAcquire();
            if (lease.isEmpty()) {
                held.remove(name, mine);
                return Optional.empty();
            }
            mine.lease = lease.get();
            mine.lease.onLost(lost -> releaseLater(mine));
            return Optional.of(new BatonSimpleLock(mine));
        } catch (LockConfigurationException e) {
            held.remove(name, mine);
            throw new LockConfigurationException(
                    "ShedLock lock '" + name + "' (lockAtMostFor " + configuration.getLockAtMostFor() + ") on "
                            + client.backendName() + ": " + e.getMessage()
                            + "; with ShedLock, the lock name is @SchedulerLock(name) and the lease time is its"
                            + " lockAtMostFor",
                    e);
        } catch (RuntimeException | Error e) {
            held.remove(name, mine);
            throw e;
        }
    }

    private LockOptions optionsFor(LockConfiguration configuration) {
        return client.options().toBuilder()
                .leaseTime(configuration.getLockAtMostFor())
                .autoRenew(false)
                .build();
    }

    /** Releases now, or after the rest of lockAtLeastFor on the release thread. */
    private void unlock(Held lock) {
        long remainingNanos = lock.atLeastFor.toNanos() - (System.nanoTime() - lock.startNanos);
        if (remainingNanos <= 0) {
            lock.release();
            return;
        }
        try {
            releases.schedule(lock::release, remainingNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug(
                    "ShedLock lock '{}' on {}: provider closed, the lease ends at lockAtMostFor",
                    lock.name,
                    client.backendName());
        }
    }

    /** A lost lease is let go off the caller's thread: onLost listeners must not block. */
    private void releaseLater(Held lock) {
        try {
            releases.execute(lock::release);
        } catch (RejectedExecutionException e) {
            log.debug("ShedLock lock '{}': provider closed, lost lease left to the client", lock.name);
        }
    }

    /**
     * Stops the release thread. Releases waiting for lockAtLeastFor are dropped: their leases end on
     * the backend at lockAtMostFor, or when the client is closed. Idempotent.
     */
    @Override
    public void close() {
        releases.shutdownNow();
    }

    @Override
    public String toString() {
        return "BatonLockProvider[" + client.backendName() + "]";
    }

    /** One lock this provider holds, from the attempt until the lease is let go. */
    private final class Held {
        final String name;
        /** Where lockAtLeastFor counts from: the attempt, or the last extension. */
        volatile long startNanos;

        volatile Duration atLeastFor;
        volatile Lease lease;

        Held(String name, long startNanos, Duration atLeastFor) {
            this.name = name;
            this.startNanos = startNanos;
            this.atLeastFor = atLeastFor;
        }

        /** Being acquired, or a lease that is still valid (maybe unlocked, waiting for lockAtLeastFor). */
        boolean stillHeld() {
            Lease current = lease;
            return current == null || current.isValid();
        }

        /** Closes the lease, then forgets it, so that no reentrant hold can slip in between. */
        void release() {
            Lease current = lease;
            if (current != null) {
                current.close();
            }
            held.remove(name, this);
        }
    }

    /** ShedLock's view of one held lock: unlock or extend it once. */
    private final class BatonSimpleLock implements SimpleLock {
        private final Held lock;
        private final AtomicBoolean done = new AtomicBoolean();

        BatonSimpleLock(Held lock) {
            this.lock = lock;
        }

        @Override
        public void unlock() {
            if (!done.compareAndSet(false, true)) {
                throw new IllegalStateException("ShedLock lock '" + lock.name + "' on " + client.backendName()
                        + " has already been unlocked or extended; unlock each lock once (after extend, the lock"
                        + " extend returned)");
            }
            BatonLockProvider.this.unlock(lock);
        }

        /**
         * Extends the lease to {@code lockAtMostFor} from now ({@link Lease#extend}); the new
         * lockAtLeastFor counts from now.
         *
         * @return the extended lock, or empty if the lease was already lost
         * @throws IllegalArgumentException if lockAtMostFor is not positive, or lockAtLeastFor is
         *     negative or longer than lockAtMostFor
         * @throws LockConfigurationException if the backend cannot keep the lease for lockAtMostFor
         *     (the lock is then still held and may be unlocked or extended again)
         * @throws IllegalStateException if this lock was already unlocked or extended
         */
        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            String subject = "ShedLock lock '" + lock.name + "' on " + client.backendName();
            if (lockAtMostFor == null || lockAtMostFor.isZero() || lockAtMostFor.isNegative()) {
                throw new IllegalArgumentException(
                        subject + ": cannot extend to lockAtMostFor " + lockAtMostFor + "; give a positive duration");
            }
            if (lockAtLeastFor == null || lockAtLeastFor.isNegative() || lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
                throw new IllegalArgumentException(subject + ": cannot extend with lockAtLeastFor " + lockAtLeastFor
                        + "; it must be between zero and lockAtMostFor (" + lockAtMostFor + ")");
            }
            if (!done.compareAndSet(false, true)) {
                throw new IllegalStateException(subject + " has already been unlocked or extended; extend the lock"
                        + " the last extend returned");
            }
            long startNanos = System.nanoTime();
            try {
                lock.lease.extend(lockAtMostFor);
            } catch (LockLostException | IllegalStateException gone) {
                log.debug("{}: not extended, the lease is gone: {}", subject, gone.getMessage());
                return Optional.empty();
            } catch (RuntimeException e) {
                done.set(false); // not extended: the lock is as it was
                if (e instanceof LockConfigurationException) {
                    throw new LockConfigurationException(
                            subject + ": cannot extend to lockAtMostFor " + lockAtMostFor + ": " + e.getMessage(), e);
                }
                throw e;
            }
            lock.startNanos = startNanos;
            lock.atLeastFor = lockAtLeastFor;
            return Optional.of(new BatonSimpleLock(lock));
        }

        @Override
        public String toString() {
            return "BatonSimpleLock[" + lock.name + " on " + client.backendName() + ", fencing token "
                    + lock.lease.fencingToken() + "]";
        }
    }
}
