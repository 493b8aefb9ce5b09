package dev.baton.servers;

/**
 * Stops and continues processes with SIGSTOP and SIGCONT, as a long GC pause or a frozen VM does: the
 * process keeps its connections open and sees no time pass while stopped. Used by fault injection on
 * the servers this module starts and on forked client JVMs.
 */
public final class ProcessSignals {
    private ProcessSignals() {}

    /**
     * Sends SIGSTOP to {@code pid}.
     *
     * @param pid the process to freeze, as a pause that outlasts a lease; resume it with {@link
     *     #resume(long)}
     * @throws IllegalStateException if {@code kill} failed (no such process, not permitted)
     */
    public static void stop(long pid) {
        send(pid, "STOP");
    }

    /**
     * Sends SIGCONT to {@code pid}.
     *
     * @param pid the process to continue after {@link #stop(long)}
     *
     * @throws IllegalStateException if {@code kill} failed (no such process, not permitted)
     */
    public static void resume(long pid) {
        send(pid, "CONT");
    }

    private static void send(long pid, String signal) {
        if (!Posix.signal(pid, signal)) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed (is the process gone, or"
                    + " is the procps 'kill' command missing?)");
        }
    }
}
