package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What the core does for semaphores and multi-locks whatever the backend: permits are neither
 * reentrant nor thread-bound and carry their count; a backend without permits is refused; a
 * multi-lock asks for its members in canonical order and reports one member's loss as the whole's.
 */
class PermitAndMultiLockCoreTest {

    /** Grants every request at once, remembers it, and stops renewing the names in {@code failing}. */
    private static final class GrantingBackend implements LockBackend {
        final List<LockRequest> requests = new CopyOnWriteArrayList<>();
        final Set<String> failing = ConcurrentHashMap.newKeySet();
        private final AtomicLong tokens = new AtomicLong();
        private final boolean permits;

        GrantingBackend(boolean permits) {
            this.permits = permits;
        }

        @Override
        public String name() {
            return "granting";
        }

        @Override
        public boolean supportsPermits() {
            return permits;
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            requests.add(request);
            return Optional.of(
                    Grant.of(request, tokens.incrementAndGet(), Instant.now().plus(request.leaseTime())));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            if (failing.contains(grant.name())) {
                return Optional.empty();
            }
            return Optional.of(grant.withExpiresAt(Instant.now().plus(leaseTime)));
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public void close() {}
    }

    @Test
    void permitsAreNeitherReentrantNorThreadBoundAndCarryTheirCount() throws Exception {
        GrantingBackend backend = new GrantingBackend(true);
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            Lease first = client.semaphore("s", 4).acquire();
            Lease second = client.semaphore("s", 4).acquire();
            assertThat(second.fencingToken()).isNotEqualTo(first.fencingToken());
            Thread closer = new Thread(first::close);
            closer.start();
            Await.condition("the close on another thread to end", TestTime.grant(), () -> !closer.isAlive());
            assertThat(first.isValid()).isFalse();
            assertThat(second.isValid()).isTrue();
            second.close();
            assertThat(client.heldGrantCount()).isZero();
        }
        assertThat(backend.requests).hasSize(2).allSatisfy(request -> {
            assertThat(request.kind()).isEqualTo(LockKind.PERMIT);
            assertThat(request.permits()).isEqualTo(4);
        });
    }

    @Test
    void aBackendWithoutPermitsIsRefusedBeforeAnyRequest() {
        GrantingBackend backend = new GrantingBackend(false);
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            assertThatThrownBy(() -> client.semaphore("s", 2))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("Baton semaphore 's'")
                    .hasMessageContaining("granting")
                    .hasMessageContaining("no semaphores");
        }
        assertThat(backend.requests).isEmpty();
    }

    @Test
    void aMultiLockAsksForItsMembersInCanonicalOrder() {
        GrantingBackend backend = new GrantingBackend(false);
        try (ClientCore client = new ClientCore(backend, LockOptions.defaults())) {
            try (Lease lease = client.multiLock("c", "a", "b").acquire()) {
                assertThat(lease.members()).extracting(Lease::name).containsExactly("a", "b", "c");
            }
            client.multiLock("b", "c", "a").acquire().close();
        }
        assertThat(backend.requests).extracting(LockRequest::name).containsExactly("a", "b", "c", "a", "b", "c");
    }

    @Test
    void theLossOfOneMemberIsTheLossOfTheWholeReportedOnce() throws Exception {
        GrantingBackend backend = new GrantingBackend(false);
        Duration leaseTime = Duration.ofMillis(300);
        LockOptions options = LockOptions.defaults().withLeaseTime(leaseTime);
        try (ClientCore client = new ClientCore(backend, options)) {
            Lease lease = client.multiLock(List.of("a", "b"), options).acquire();
            AtomicInteger reports = new AtomicInteger();
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost(e -> {
                reports.incrementAndGet();
                lost.countDown();
            });
            backend.failing.add("b");
            Await.condition("the loss to be reported", TestTime.bound(leaseTime), () -> lost.getCount() == 0);
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.members().get(0).isValid())
                    .as("member a is still held")
                    .isTrue();
            assertThatThrownBy(lease::checkValid)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("multi-lock [a, b]")
                    .hasMessageContaining("'b'");
            lease.close();
            assertThat(lease.members().get(0).isValid()).isFalse();
            assertThat(reports.get()).isEqualTo(1);
        }
    }
}
