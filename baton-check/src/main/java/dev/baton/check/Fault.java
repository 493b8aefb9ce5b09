package dev.baton.check;

/** A fault a check run injects again and again, at times drawn from its seed. */
public enum Fault {
    /** kill -9 of a client that holds a lock: it releases nothing. */
    KILL("kill -9 of a holder"),
    /** SIGSTOP of a holder for longer than its lease, then SIGCONT: the GC-pause case. */
    PAUSE("SIGSTOP of a holder past its lease"),
    /** Every connection of a holder closed, new ones refused, for longer than its lease. */
    CUT("a holder's connections cut past its lease"),
    /** A holder's traffic silently held back for longer than its lease (connections stay open). */
    BLACKHOLE("a holder's traffic black-holed past its lease"),
    /** The server (or one of its members) killed with SIGKILL and started again. */
    RESTART("server killed and restarted"),
    /** A replicated master killed (behind Sentinel, or of a Cluster); a replica is promoted in its place. */
    FAILOVER("master killed, replica promoted"),
    /** The cluster's Raft leader killed with SIGKILL (the others elect a new one), and started again. */
    LEADER_KILL("Raft leader killed and restarted");

    private final String description;

    Fault(String description) {
        this.description = description;
    }

    /** {@return what the fault does, for reports} */
    public String description() {
        return description;
    }

    /** {@return the name used on the command line, e.g. {@code leader-kill}} */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /**
     * {@return the fault of this command-line name (case and {@code -} or {@code _} alike)}
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static Fault of(String id) {
        return valueOf(id.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }

    /** Whether the fault isolates one client (rather than hitting a server). */
    boolean hitsAClient() {
        return this == KILL || this == PAUSE || this == CUT || this == BLACKHOLE;
    }
}
