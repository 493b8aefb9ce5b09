package dev.baton.tck;

import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A candidate for {@link LeadershipProperty} and {@link StoppedHolderProperty}: the leader a forked
 * worker stands for ({@link ForkedLockClient}'s {@code stand} and {@code hold-and-lead} modes) and the
 * follower in the test's JVM stand the same way, with the same options.
 */
final class ForkedCandidate {
    /** The kit's usual longest poll delay ({@link LockBackendContract#options()}). */
    private static final Duration SHORTEST_POLL = Duration.ofMillis(50);

    /** Far below {@link KitTime#TAKE_OVER}, which every take-over a candidate waits for allows. */
    private static final Duration LONGEST_POLL = Duration.ofMillis(250);

    private ForkedCandidate() {}

    /**
     * A candidate's options: the property's lease, the kit's operation timeout, and polling quick
     * beside the lease: every 50 ms at most on the kit's 2 s leases, a fortieth of a longer lease
     * (but no more than {@link #LONGEST_POLL}), since a candidate mostly waits for a lease to run out
     * and each poll is a call the server answers.
     */
    static LockOptions options(Duration lease) {
        Duration poll = lease.dividedBy(40);
        poll = poll.compareTo(SHORTEST_POLL) < 0 ? SHORTEST_POLL : poll;
        return LockOptions.builder()
                .leaseTime(lease)
                .operationTimeout(KitTime.operationTimeout())
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(poll.compareTo(LONGEST_POLL) > 0 ? LONGEST_POLL : poll)
                .build();
    }

    /**
     * Stands for {@code name} on {@code client}; says {@code ELECTED <epoch>} and {@code REVOKED
     * <epoch> <reason>} as the listener hears them (the kit's follower stands in its own JVM the same
     * way).
     */
    static Leadership stand(LockClient client, String name, Consumer<String> say) {
        Leadership leadership = client.leadership(name).addListener(new LeadershipListener() {
            @Override
            public void elected(long epoch) {
                say.accept("ELECTED " + epoch);
            }

            @Override
            public void revoked(long epoch, Reason reason, LockLostException cause) {
                say.accept("REVOKED " + epoch + " " + reason);
            }
        });
        leadership.start();
        return leadership;
    }
}
