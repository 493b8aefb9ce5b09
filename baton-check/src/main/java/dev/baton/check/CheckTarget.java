package dev.baton.check;

import dev.baton.testsupport.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A backend a check runs against, with the servers it starts and the faults it can inject there: a
 * Baton backend, or a naive lock on the same kind of server.
 */
interface CheckTarget extends AutoCloseable {

    /** Short name used on the command line, e.g. {@code postgres}, {@code redis}, {@code naive-setnx}. */
    String id();

    /** What runs, for reports, e.g. "Baton, PostgreSQL table strategy". */
    String description();

    /** The {@link CheckClient} subject: {@code baton} or a naive lock. */
    String subject();

    /** Whether this is one of the naive locks whose violations the checker must find. */
    default boolean naive() {
        return subject().startsWith("naive");
    }

    /**
     * Whether this is a peer library (Redisson, Curator, ShedLock, jetcd) on a Baton target's servers:
     * what the checker finds in its runs is reported, not counted as a violation of Baton's.
     */
    default boolean peer() {
        return false;
    }

    /**
     * Whether the backend promises that no two clients hold a lock at once unless a holder was stopped
     * or cut off past its lease (ZooKeeper, PostgreSQL, etcd); Redis does not promise it across a
     * restart without persistence or a failover.
     */
    boolean strict();

    /** The faults this target can inject. */
    Set<Fault> faults();

    /**
     * The work of the one hold in ten that lasts long (see {@link CheckSettings#longWork()}): long
     * enough that a server fault can meet a holder in the middle of it.
     */
    default Duration longWork(CheckSettings settings) {
        return settings.longWork();
    }

    /**
     * The shortest lease this backend honours, e.g. 15 s on Azure Blob, 2 s on etcd (its minimum TTL
     * with default Raft timings); a run raises the lease to it ({@link
     * CheckSettings#withMinimumLease(Duration)}) so that an isolated holder does lose its lease.
     */
    default Duration minimumLease() {
        return Duration.ZERO;
    }

    /**
     * How long a pause, cut or black hole lasts: by default past the lease ({@link
     * CheckSettings#isolation()}), so that the holder loses its lock. A target whose server frees a lock
     * sooner than the lease (a ZooKeeper session shorter than it) isolates for less than the lease and
     * longer than that, where a holder whose validity followed the lease would still believe the lock
     * its own on resuming.
     */
    default Duration isolation(CheckSettings settings) {
        return settings.isolation();
    }

    /** How many lock names the clients share. */
    default int locks(CheckSettings settings) {
        return settings.locks();
    }

    /** Starts the servers (once per target; several runs reuse them), for runs that may inject any of its faults. */
    void start();

    /**
     * Starts the servers for runs that inject only {@code planned}: by default as {@link #start()}. A
     * target whose runs leave its servers alone (no server fault planned) may run on a server it
     * shares with other such targets instead of one of its own; it then cannot {@link #hitServer}.
     */
    default void start(Set<Fault> planned) {
        start();
    }

    /**
     * The way one client reaches the servers: its URI, through proxies of its own where the target
     * can put them in between (so that its connections alone can be cut).
     */
    Route route(int client);

    /**
     * Injects a server fault ({@link Fault#RESTART}, {@link Fault#FAILOVER} or {@link Fault#LEADER_KILL})
     * and returns once it is over.
     */
    void hitServer(Fault fault, Random random) throws InterruptedException;

    @Override
    void close();

    /** A client's URI and the proxies it goes through. */
    record Route(String uri, List<TcpProxy> proxies) implements AutoCloseable {
        @Override
        public void close() {
            proxies.forEach(TcpProxy::close);
        }
    }
}
