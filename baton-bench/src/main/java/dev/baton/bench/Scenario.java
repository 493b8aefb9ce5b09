package dev.baton.bench;

/**
 * The workloads. A rows are uncontended (one name per thread), B and C rows contend for one name,
 * from one client (B) or from one client per thread (C, like separate application instances). S8
 * contends for the permits of one semaphore from one client per thread: half as many permits as
 * threads (4 of 8), so that half the threads wait at any time; it runs only for subjects that have
 * semaphores ({@link LockSubject#hasSemaphores()}).
 */
public enum Scenario {
    A1(1, false, false, false),
    A8(8, false, false, false),
    B8(8, true, false, false),
    C8(8, true, true, false),
    S8(8, true, true, true);

    private final int threads;
    private final boolean contended;
    private final boolean clientPerThread;
    private final boolean semaphore;

    Scenario(int threads, boolean contended, boolean clientPerThread, boolean semaphore) {
        this.threads = threads;
        this.contended = contended;
        this.clientPerThread = clientPerThread;
        this.semaphore = semaphore;
    }

    public int threads() {
        return threads;
    }

    /** Whether all threads use one lock (or semaphore) name. */
    public boolean contended() {
        return contended;
    }

    /** Whether each thread has its own client. */
    public boolean clientPerThread() {
        return clientPerThread;
    }

    /** Whether the threads take semaphore permits rather than a lock. */
    public boolean semaphore() {
        return semaphore;
    }

    /**
     * How many holders may be inside at once with {@code threads} threads: the semaphore's permits
     * (half the threads, at least 1) for S8, 1 for a contended lock.
     */
    public int permits(int threads) {
        return semaphore ? Math.max(1, threads / 2) : 1;
    }

    public String describe() {
        return switch (this) {
            case A1 -> "1 thread, uncontended";
            case A8 -> "8 threads, 8 names, one client";
            case B8 -> "8 threads, one name, one client";
            case C8 -> "8 threads, one name, 8 clients";
            case S8 -> "8 threads, 8 clients, one semaphore of 4 permits";
        };
    }
}
