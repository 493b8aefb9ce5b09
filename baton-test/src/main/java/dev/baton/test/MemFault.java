package dev.baton.test;

/**
 * A fault in force on a {@code mem://} namespace ({@link MemFaults#stallRenewals}, {@link
 * MemFaults#refuseRenewals}, {@link MemFaults#unreachable}): it lasts until it is closed, {@link
 * MemFaults#heal()} ends every fault, or, for one made with a duration, until that has passed.
 * Closing it more than once is harmless.
 */
public final class MemFault implements AutoCloseable {
    enum Kind {
        STALL_RENEWALS,
        REFUSE_RENEWALS,
        UNREACHABLE
    }

    private final MemFaults faults;
    private final Kind kind;
    private final String lock;
    private final long untilNanos;
    private final boolean timed;
    private volatile boolean ended;

    MemFault(MemFaults faults, Kind kind, String lock, long untilNanos, boolean timed) {
        this.faults = faults;
        this.kind = kind;
        this.lock = lock;
        this.untilNanos = untilNanos;
        this.timed = timed;
    }

    /**
     * Whether the fault is still in force.
     *
     * @return false once closed, healed, or past its duration
     */
    public boolean isActive() {
        return !ended && (!timed || System.nanoTime() - untilNanos < 0);
    }

    /** Ends the fault: a renewal it stalls goes on at once, and calls it refused are answered again. */
    @Override
    public void close() {
        if (!ended) {
            ended = true;
            faults.ended(this);
        }
    }

    Kind kind() {
        return kind;
    }

    /** Whether the fault applies to {@code name}: a fault without a name applies to every one. */
    boolean covers(Kind wanted, String name) {
        return kind == wanted && (lock == null || lock.equals(name)) && isActive();
    }

    /** Nanoseconds until a timed fault ends by itself; {@link Long#MAX_VALUE} for an untimed one. */
    long nanosLeft() {
        return timed ? untilNanos - System.nanoTime() : Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return "MemFault[" + kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                + (lock == null ? "" : " of '" + lock + "'") + (isActive() ? "" : ", ended") + "]";
    }
}
