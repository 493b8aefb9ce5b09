package dev.baton.check;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The lock a check client runs its workload on: Baton's, or one of the naive locks the usual
 * articles teach ({@link NaiveLocks}). Runs inside a forked client JVM.
 */
interface ClientSubject extends AutoCloseable {

    /**
     * Takes {@code lock}, waiting at most {@code timeout}; empty when another owner held it all along.
     * {@code onLost} runs when the subject learns that the hold was lost (Baton's onLost; naive locks
     * never learn).
     */
    Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost);

    @Override
    void close();

    /** A hold of one lock. */
    interface Hold {
        /** The fencing token, 0 where the subject has none. */
        long token();

        /** Whether the holder knows, right now, that it lost the lock. */
        boolean knownLost();

        /** Releases; never throws for a lock that is already gone. */
        void release();

        /** A hold with no fencing token whose holder is never told of a loss: naive locks, ShedLock. */
        static Hold unfenced(Runnable release) {
            return new Hold() {
                @Override
                public long token() {
                    return 0;
                }

                @Override
                public boolean knownLost() {
                    return false;
                }

                @Override
                public void release() {
                    release.run();
                }
            };
        }
    }

    /** Baton, connected by URI, with the check's lease time. */
    static ClientSubject baton(String uri, Duration leaseTime) {
        LockClient client = Baton.connect(
                uri,
                LockOptions.builder()
                        .leaseTime(leaseTime)
                        .operationTimeout(leaseTime.dividedBy(2))
                        .pollInitialDelay(Duration.ofMillis(2))
                        .pollMaxDelay(Duration.ofMillis(50))
                        .build());
        return new ClientSubject() {
            @Override
            public Optional<Hold> acquire(String lock, Duration timeout, Runnable onLost) {
                Lease lease;
                try {
                    lease = client.lock(lock).acquire(timeout);
                } catch (LockTimeoutException e) {
                    return Optional.empty();
                }
                AtomicBoolean lost = new AtomicBoolean();
                Consumer<dev.baton.LockLostException> listener = e -> {
                    lost.set(true);
                    onLost.run();
                };
                lease.onLost(listener);
                return Optional.of(new Hold() {
                    @Override
                    public long token() {
                        return lease.fencingToken();
                    }

                    @Override
                    public boolean knownLost() {
                        return lost.get() || !lease.isValid();
                    }

                    @Override
                    public void release() {
                        lease.close();
                    }
                });
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
