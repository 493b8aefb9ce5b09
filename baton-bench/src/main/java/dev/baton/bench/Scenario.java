package dev.baton.bench;

/**
 * The workloads. A rows are uncontended (one name per thread), B and C rows contend for one name,
 * from one client (B) or from one client per thread (C, like separate application instances).
 */
public enum Scenario {
    A1(1, false, false),
    A8(8, false, false),
    B8(8, true, false),
    C8(8, true, true);

    private final int threads;
    private final boolean contended;
    private final boolean clientPerThread;

    Scenario(int threads, boolean contended, boolean clientPerThread) {
        this.threads = threads;
        this.contended = contended;
        this.clientPerThread = clientPerThread;
    }

    public int threads() {
        return threads;
    }

    /** Whether all threads use one lock name. */
    public boolean contended() {
        return contended;
    }

    /** Whether each thread has its own client. */
    public boolean clientPerThread() {
        return clientPerThread;
    }

    public String describe() {
        return switch (this) {
            case A1 -> "1 thread, uncontended";
            case A8 -> "8 threads, 8 names, one client";
            case B8 -> "8 threads, one name, one client";
            case C8 -> "8 threads, one name, 8 clients";
        };
    }
}
