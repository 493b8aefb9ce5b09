package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A holder whose lease ran out under it (stopped or cut off past its lease) may release before any
 * renewal or the watchdog noticed. When the backend then answers that it no longer had the grant,
 * the holder must still hear of the loss: `baton check` found such losses going unreported.
 */
class LossAtReleaseTest {

    /** Grants everything; {@code held} says whether a release still finds the grant. */
    private static final class ForgetfulBackend implements LockBackend {
        volatile boolean held = true;

        @Override
        public String name() {
            return "forgetful";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            return Optional.of(Grant.of(request, 7, Instant.now().plusSeconds(60)));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant);
        }

        @Override
        public boolean release(Grant grant) {
            return held;
        }

        @Override
        public void close() {}
    }

    private final ForgetfulBackend backend = new ForgetfulBackend();
    private final List<LockLostException> heard = new CopyOnWriteArrayList<>();

    @Test
    void aReleaseThatFindsTheGrantGoneTellsTheHoldersListeners() {
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            Lease lease = client.lock("a").acquire();
            lease.onLost(heard::add);
            backend.held = false; // the lease ran out on the backend while the holder was away
            lease.close();
        }
        assertThat(heard).hasSize(1);
        assertThat(heard.get(0)).hasMessageContaining("no longer had it").hasMessageContaining("token 7");
    }

    @Test
    void aNormalReleaseTellsNobody() {
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            Lease lease = client.lock("a").acquire();
            lease.onLost(heard::add);
            lease.close();
        }
        assertThat(heard).isEmpty();
    }

    @Test
    void aReentrantHoldReportsOnlyWhenTheLastHoldIsReleased() {
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            Lease outer = client.lock("a").acquire();
            Lease inner = client.lock("a").acquire();
            outer.onLost(heard::add);
            backend.held = false;
            inner.close();
            assertThat(heard).isEmpty();
            outer.close();
        }
        assertThat(heard).hasSize(1);
    }
}
