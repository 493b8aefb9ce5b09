package dev.baton.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one timer thread of a client: when each grant's renewal is due, and when each grant's
 * validity runs out (its watchdog, and the expiry of a grant without auto-renewal).
 *
 * <p>It never talks to the backend: renewals that come due are handed, together, to the client's
 * {@link LeaseRenewer}, which sends them in batches on its own threads. Watchdog and expiry tasks
 * only change local state and call loss listeners, so a hung renewal call never delays a loss report.
 *
 * <p>Look-ahead: once a renewal is due, every renewal due within {@link Task#aheadNanos} of now
 * (half its renewal interval I, a sixth of its lease) goes with it, so a client holding many grants
 * renews them in few calls. Renewing up to I/2 early is harmless: a lease is then renewed between a
 * sixth and a third of its lease time after the last renewal was sent, never later. Why half:
 * <ul>
 *   <li>Groups converge. A group renewed together is due together again (the next renewal counts
 *       from the send time, not the answer). Two groups of one lease time, due at t and t1 with t1
 *       in (t, t + I]: if t1 &le; t + I/2, t takes t1 with it; otherwise t is renewed and next due
 *       at t + I, which is within I/2 of t1, so t1 takes it. Any two groups merge within one
 *       interval, so grants taken at arbitrary moments are renewed as one group per lease time
 *       after about two intervals (a window of a tenth never merges groups more than I/10 apart).
 *   <li>Churn costs at most about twice. With a steady stream of new grants, a new grant due more
 *       than I/2 after the main group pulls the main group with it, early; then the main group is
 *       due again I later, so this happens at most about once per half interval: in the worst case
 *       the held grants are renewed about twice per interval instead of once. A smaller window
 *       (I/10) costs at most ~1.1&times; under churn but leaves groups apart forever, which costs far
 *       more calls on backends with batches (each group pays its own partly filled calls); a rule
 *       that only fills a partly filled call with grants due soon would keep churn cheap too, but
 *       needs the batch size and lease-time grouping in the timer, so it is not done here.
 * </ul>
 *
 * <p>Why not a {@code ScheduledThreadPoolExecutor}: scheduling there takes the queue's lock, sifts a
 * heap, often wakes the timer thread (a new earliest task), and the release has to cancel and remove
 * the task again, all on the acquiring and releasing threads. Most grants are released long before
 * their first renewal, so that work is wasted, and beside a fast backend's round trip it is a large
 * share of a grant's cost. Here a new task is one lock-free queue append; the timer thread
 * moves the tasks of grants still held into its own heap in batches (every {@link #DRAIN_NANOS}
 * while tasks keep arriving) and simply drops the tasks of grants released meanwhile.
 * Nothing is cancelled: a task whose grant is no longer held does nothing when it comes due.
 *
 * <p>Wake-ups: {@code wakeAt} is when the thread will look next ({@code Long.MAX_VALUE} while it is
 * awake and working). A new task wakes the thread only if it must be looked at before that; a busy
 * client's thread looks every {@link #DRAIN_NANOS} anyway, so it pays for ten wake-ups per second,
 * not one per grant; a task added while the thread is
 * awake leaves an unpark permit, so no task is missed between its last look and its park.
 */
final class RenewalTimer {
    private static final Logger log = LoggerFactory.getLogger(RenewalTimer.class);

    /** Longest time a newly added task waits before the thread looks at it. */
    static final long DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** What a task does when it comes due. */
    enum Kind {
        /** Renew the grant (through the {@link LeaseRenewer}). */
        RENEW,
        /** Report the grant lost if it was not renewed by now, its validity deadline. */
        WATCH,
        /** Report a grant without auto-renewal lost once its lease time elapsed. */
        EXPIRE
    }

    /**
     * A task for one grant, due at a point of the client's ticker; once some task is due, a task
     * due within {@code aheadNanos} runs with it.
     */
    record Task(HeldGrant grant, long dueNanos, long aheadNanos, Kind kind) {}

    private final String threadName;
    private final Ticker ticker;
    private final LeaseRenewer renewer;
    private final ConcurrentLinkedQueue<Task> incoming = new ConcurrentLinkedQueue<>();
    /** Confined to the timer thread. */
    private final PriorityQueue<Task> due = new PriorityQueue<>((a, b) -> Long.compare(a.dueNanos, b.dueNanos));

    private final AtomicBoolean started = new AtomicBoolean();
    private volatile Thread thread;
    private volatile long wakeAt = Long.MAX_VALUE;
    private volatile boolean stopped;

    RenewalTimer(String threadName, Ticker ticker, LeaseRenewer renewer) {
        this.threadName = threadName;
        this.ticker = ticker;
        this.renewer = renewer;
    }

    /**
     * Runs a task of {@code kind} for {@code grant} once {@code delayNanos} have passed (a renewal up
     * to {@code aheadNanos} earlier, with others), if the grant is still held then.
     *
     * @return false if the timer was stopped (the client is closing and releases every grant itself)
     */
    boolean schedule(HeldGrant grant, Kind kind, long delayNanos, long aheadNanos) {
        if (stopped) {
            return false;
        }
        long now = ticker.nanoTime();
        long dueNanos = now + Math.max(0, delayNanos);
        incoming.add(new Task(grant, dueNanos, aheadNanos, kind));
        Thread current = thread;
        if (current == null) {
            start();
            return true;
        }
        long lookBy = Math.min(dueNanos, now + DRAIN_NANOS);
        if (lookBy - wakeAt < 0 || wakeAt == Long.MAX_VALUE) {
            LockSupport.unpark(current);
        }
        return true;
    }

    /** Schedules a new grant's first task: its first renewal, or its expiry without auto-renewal. */
    void scheduleFirst(HeldGrant grant) {
        long now = ticker.nanoTime();
        if (grant.options.autoRenew()) {
            scheduleRenewal(grant, now);
        } else {
            scheduleIfHeld(grant, Kind.EXPIRE, grant.validUntilNanos() - now, 0);
        }
    }

    /**
     * Renews {@code grant} one {@link #renewInterval} after {@code fromNanos}, or up to half that
     * interval earlier together with other grants (this class explains why half).
     */
    void scheduleRenewal(HeldGrant grant, long fromNanos) {
        long intervalNanos = renewInterval(grant, fromNanos);
        scheduleIfHeld(grant, Kind.RENEW, fromNanos + intervalNanos - ticker.nanoTime(), intervalNanos / 2);
    }

    /**
     * A third of the lease, or half of what is left at {@code fromNanos} of a grant the backend made
     * valid for less.
     */
    static long renewInterval(HeldGrant grant, long fromNanos) {
        long left = grant.validUntilNanos() - fromNanos;
        return Math.max(1, Math.min(grant.options.leaseTime().toNanos() / 3, left / 2));
    }

    /** Like {@link #schedule}, if {@code grant} is still held. */
    void scheduleIfHeld(HeldGrant grant, Kind kind, long delayNanos, long aheadNanos) {
        if (grant.status() == HeldGrant.Status.HELD && !schedule(grant, kind, delayNanos, aheadNanos)) {
            // The client is closing: it releases every grant itself.
            log.debug("{}: not scheduling renewal, the client is closing", grant.describe());
        }
    }

    private void start() {
        if (started.compareAndSet(false, true)) {
            Thread created = new Thread(this::run, threadName);
            created.setDaemon(true);
            thread = created;
            created.start();
        } else {
            // Another thread is starting it: make sure it looks at our task once it runs.
            Thread current = thread;
            if (current != null) {
                LockSupport.unpark(current);
            }
        }
    }

    private void run() {
        while (!stopped) {
            wakeAt = Long.MAX_VALUE;
            long now = ticker.nanoTime();
            boolean arrived = false;
            for (Task task = incoming.poll(); task != null; task = incoming.poll()) {
                arrived = true;
                if (task.grant.status() == HeldGrant.Status.HELD) {
                    due.add(task);
                }
            }
            runDue(now);
            now = ticker.nanoTime();
            if (stopped) {
                break;
            }
            long next = due.isEmpty() ? Long.MAX_VALUE : due.peek().dueNanos;
            if (arrived || !incoming.isEmpty()) {
                // A busy client: look again after DRAIN_NANOS, so that new tasks need not wake the
                // thread. Only after a quiet round does it sleep until its next due task.
                next = Math.min(next, now + DRAIN_NANOS);
            }
            wakeAt = next;
            if (next == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, Math.max(1, next - ticker.nanoTime()));
            }
        }
        incoming.clear();
        due.clear();
    }

    /**
     * Runs the tasks due now; once renewals are due, also takes the renewals due within their
     * look-ahead: watchdog and expiry tasks run at once, renewals go to the renewer together. A
     * watchdog or expiry task inside the look-ahead but not yet due waits for its time.
     */
    private void runDue(long now) {
        List<HeldGrant> renewals = new ArrayList<>();
        List<Task> notYetDue = List.of();
        long horizon = now;
        while (!due.isEmpty() && !stopped) {
            Task task = due.peek();
            boolean isDue = task.dueNanos - now <= 0;
            if (!isDue && task.dueNanos - horizon > 0) {
                break;
            }
            due.poll();
            if (task.grant.status() != HeldGrant.Status.HELD) {
                continue;
            }
            if (task.kind == Kind.RENEW) {
                if (isDue && now + task.aheadNanos - horizon > 0) {
                    horizon = now + task.aheadNanos;
                }
                armWatchdog(task.grant);
                renewals.add(task.grant);
                continue;
            }
            if (!isDue) {
                if (notYetDue.isEmpty()) {
                    notYetDue = new ArrayList<>();
                }
                notYetDue.add(task);
                continue;
            }
            try {
                if (task.kind == Kind.WATCH) {
                    watchdog(task.grant);
                } else {
                    expireIfUnrenewed(task.grant);
                }
            } catch (RuntimeException e) {
                log.error("{}: a lease check failed", task.grant.describe(), e);
            }
        }
        due.addAll(notYetDue);
        if (!renewals.isEmpty()) {
            try {
                renewer.dispatch(renewals);
            } catch (RuntimeException e) {
                log.error("{}: handing {} renewal(s) to the renewer failed", threadName, renewals.size(), e);
            }
        }
    }

    /**
     * Arms the watchdog of a grant whose renewal is about to be sent: at the current validity
     * deadline the grant is reported lost unless a renewal moved the deadline first, however long the
     * call hangs.
     *
     * <p>One watchdog task per grant, not one per renewal: a task already due at or before the
     * deadline stays, and when it finds the deadline moved it looks again at the new one ({@link
     * #watchdog}). A task per renewal would keep up to three per grant queued (a renewal every third
     * of the lease, each watching a whole lease ahead), which weighs on a client holding many.
     */
    private void armWatchdog(HeldGrant grant) {
        long deadline = grant.validUntilNanos();
        if (grant.watchArmed && deadline - grant.watchDueNanos >= 0) {
            return;
        }
        grant.watchArmed = true;
        grant.watchDueNanos = deadline;
        scheduleIfHeld(grant, Kind.WATCH, deadline - ticker.nanoTime(), 0);
    }

    /**
     * The watchdog's check: lost if the validity deadline has passed; if a renewal moved it
     * meanwhile, looks again then.
     */
    private void watchdog(HeldGrant grant) {
        long now = ticker.nanoTime();
        if (now - grant.validUntilNanos() >= 0) {
            grant.markLostIfExpired("it was not renewed within its validity (lease time " + grant.leaseTime()
                    + "); the renewal did not answer in time");
            return;
        }
        if (now - grant.watchDueNanos < 0) {
            return; // a task armed for a later deadline that an extension shortened: the newer one looks
        }
        grant.watchDueNanos = grant.validUntilNanos();
        scheduleIfHeld(grant, Kind.WATCH, grant.watchDueNanos - now, 0);
    }

    /**
     * The expiry of a grant without auto-renewal: lost once its deadline passed, unless an
     * extension moved it.
     */
    private void expireIfUnrenewed(HeldGrant grant) {
        long remaining = grant.validUntilNanos() - ticker.nanoTime();
        if (remaining > 0) {
            scheduleIfHeld(grant, Kind.EXPIRE, remaining, 0);
            return;
        }
        grant.markLost(grant.leaseDescription() + " elapsed and auto-renewal is off", null);
    }

    /** Stops the thread and waits for it (a loss listener still running is given {@code waitMillis}). */
    boolean stop(long waitMillis) {
        stopped = true;
        Thread current = thread;
        if (current == null) {
            return true;
        }
        LockSupport.unpark(current);
        try {
            current.join(waitMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !current.isAlive();
    }
}
