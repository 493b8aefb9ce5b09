package dev.baton.check;

import java.util.Optional;

/**
 * One line of a check's history. Client JVMs print theirs on standard output; the orchestrator adds
 * the faults it injects. Times are {@link System#nanoTime()}, which on Linux is CLOCK_MONOTONIC: one
 * clock for every process of the host, so events of different processes can be ordered.
 *
 * @param kind what happened
 * @param client the client JVM it concerns (its number in the run)
 * @param lock the lock name, or {@code -} when none
 * @param token the fencing token of the hold, 0 where the subject has none
 * @param nanos when, by the host's monotonic clock
 * @param flag kind-specific: a write accepted, a release that reported the lease lost, a grant already
 *     invalid when stamped
 * @param endNanos for a write, when the resource's answer came back (nanos is when it was sent); else nanos
 */
record HistoryEvent(Kind kind, int client, String lock, long token, long nanos, boolean flag, long endNanos) {

    HistoryEvent(Kind kind, int client, String lock, long token, long nanos, boolean flag) {
        this(kind, client, lock, token, nanos, flag, nanos);
    }

    /** What a line records. */
    enum Kind {
        /** The client connected and starts its loop. */
        READY,
        /**
         * The client got the lock (printed as soon as acquire returned); flag: the lease was already
         * invalid right after this was stamped (the client was stopped in between, so the stamp may
         * be late).
         */
        ACQUIRED,
        /** The client wrote to the fenced resource (sent at nanos, answered at endNanos); flag: it was accepted. */
        WROTE,
        /**
         * The holder asked its lease whether it still holds the lock, right before writing, and it said
         * yes: it believed the lock its own at nanos (stamped before asking) or later.
         */
        BELIEVED,
        /** The client is about to release (printed before the call); flag: it knew the lease was lost. */
        RELEASING,
        /** The lease's onLost callback ran. */
        LOST,
        /** A naive waiter was woken by a release (counts the herd). */
        WOKEN,
        /** An attempt failed with an error (a fault at work); the client backs off and goes on. */
        FAILED,
        /** Orchestrator: the client was killed with SIGKILL. */
        KILLED,
        /** Orchestrator: the client was stopped (SIGSTOP) or its connections cut or black-holed. */
        ISOLATED,
        /** Orchestrator: the client runs again and reaches its servers. */
        RECONNECTED
    }

    private static final String PREFIX = "EV ";

    /** The line a client prints. */
    String format() {
        return PREFIX + kind + " " + client + " " + lock + " " + token + " " + nanos + " " + (flag ? 1 : 0) + " "
                + endNanos;
    }

    /** Parses a line printed by {@link #format()}; other lines (logs) give empty. */
    static Optional<HistoryEvent> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] parts = line.substring(PREFIX.length()).trim().split(" ");
        if (parts.length != 7) {
            return Optional.empty();
        }
        try {
            return Optional.of(new HistoryEvent(
                    Kind.valueOf(parts[0]),
                    Integer.parseInt(parts[1]),
                    parts[2],
                    Long.parseLong(parts[3]),
                    Long.parseLong(parts[4]),
                    "1".equals(parts[5]),
                    Long.parseLong(parts[6])));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static HistoryEvent of(Kind kind, int client, long nanos) {
        return new HistoryEvent(kind, client, "-", 0, nanos, false);
    }
}
