package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The fairness runs judge the shares on the grants counted when the run ended: the acquisitions
 * already under way then still end in grants, which must not raise the fifth a client had to reach.
 */
class FairnessCountTest {

    /** A contract whose fixture claims fairness; nothing here connects to it. */
    private static final LockBackendContract FAIR = new LockBackendContract() {
        @Override
        protected LockBackendFixture fixture() {
            return new LockBackendFixture() {
                @Override
                public String name() {
                    return "fair test backend";
                }

                @Override
                public String uri() {
                    return "unreachable://127.0.0.1:1";
                }

                @Override
                public InetSocketAddress serverAddress() {
                    return new InetSocketAddress("127.0.0.1", 1);
                }

                @Override
                public Set<Capability> capabilities() {
                    return Set.of(Capability.FAIR);
                }

                @Override
                public LockClient connect(LockOptions options) {
                    throw new UnsupportedOperationException("not connected in this test");
                }
            };
        }
    };

    @Test
    void grantsAfterTheRunEndedAreNotCounted() {
        AtomicIntegerArray grants = new AtomicIntegerArray(FairnessProperty.CLIENTS);
        AtomicInteger total = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        // Counting began an hour from now: the run ends on the shares alone, never on its time.
        long since = System.nanoTime() + TimeUnit.HOURS.toNanos(1);
        int[] order = {280, 50, 50, 19}; // the last client reaches a fifth of its share at grant 399
        for (int client = 0; client < order.length; client++) {
            for (int i = 0; i < order[client]; i++) {
                assertThat(stop)
                        .as("ended before grant %d of client %d", i + 1, client)
                        .isFalse();
                FairnessProperty.count(FAIR, grants, total, client, since, stop);
            }
        }
        assertThat(stop)
                .as("ended once every client had a fifth of its fair share")
                .isTrue();
        for (int i = 0; i < FairnessProperty.CLIENTS - 1; i++) {
            FairnessProperty.count(FAIR, grants, total, 0, since, stop); // acquisitions under way at the end
        }
        assertThat(total.get()).isEqualTo(399);
        assertThatCode(() -> FairnessProperty.assertFairShares(FAIR, grants)).doesNotThrowAnyException();
    }
}
