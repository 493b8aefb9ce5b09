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
    private ForkedCandidate() {}

    /** A candidate's options: the property's lease, the kit's operation timeout, quick polling. */
    static LockOptions options(Duration lease) {
        return LockOptions.builder()
                .leaseTime(lease)
                .operationTimeout(KitTime.operationTimeout())
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
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
