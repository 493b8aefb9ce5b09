package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The core tells the backend which kind of lock the caller asked for, request by request. */
class LockKindRequestTest {

    /** Grants every request at once and remembers it. */
    private static final class GrantingBackend implements LockBackend {
        final List<LockRequest> requests = new CopyOnWriteArrayList<>();
        private final AtomicLong tokens = new AtomicLong();

        @Override
        public String name() {
            return "granting";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            requests.add(request);
            return Optional.of(
                    Grant.of(request, tokens.incrementAndGet(), Instant.now().plus(request.leaseTime())));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime)));
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public void close() {}
    }

    private final GrantingBackend backend = new GrantingBackend();

    private ClientCore client() {
        return new ClientCore(backend, LockOptions.defaults());
    }

    @Test
    void eachRequestCarriesTheKindTheCallerAskedFor() {
        try (ClientCore client = client()) {
            client.lock("a").acquire().close();
            client.readWriteLock("a").readLock().acquire().close();
            client.readWriteLock("a").writeLock().acquire().close();
        }
        assertThat(backend.requests)
                .extracting(LockRequest::kind)
                .containsExactly(LockKind.MUTEX, LockKind.READ, LockKind.WRITE);
        assertThat(backend.requests)
                .extracting(LockRequest::mode)
                .containsExactly(LockMode.EXCLUSIVE, LockMode.SHARED, LockMode.EXCLUSIVE);
    }

    @Test
    void aThreadHoldingThePlainLockReentersWithTheWriteLockOfTheSameName() {
        try (ClientCore client = client()) {
            try (Lease plain = client.lock("a").acquire();
                    Lease write = client.readWriteLock("a").writeLock().acquire()) {
                assertThat(write.fencingToken()).isEqualTo(plain.fencingToken());
                assertThat(client.readWriteLock("a").writeLock().holdCount()).isEqualTo(2);
            }
        }
        assertThat(backend.requests)
                .singleElement()
                .extracting(LockRequest::kind)
                .isEqualTo(LockKind.MUTEX);
    }

    @Test
    void aRequestMadeFromAModeHasTheKindOfThatMode() {
        Duration lease = Duration.ofSeconds(1);
        assertThat(LockRequest.builder("a", "o", LockKind.MUTEX, lease).build().kind())
                .isEqualTo(LockKind.MUTEX);
        assertThat(LockRequest.builder("a", "o", LockKind.READ, lease).build().kind())
                .isEqualTo(LockKind.READ);
        assertThat(LockRequest.builder("a", "o", LockKind.WRITE, lease).build().mode())
                .isEqualTo(LockMode.EXCLUSIVE);
    }
}
