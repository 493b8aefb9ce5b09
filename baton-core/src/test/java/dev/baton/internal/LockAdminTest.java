package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Holder;
import dev.baton.LockAdmin;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockOptions;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Holder descriptions travel in every request; {@link LockAdmin} validates, breaks through the
 * backend's {@link LockBackend#forceRelease} (by default: list, then abandon each holder), and logs
 * what it broke and who broke it.
 */
class LockAdminTest {
    private static final Instant EXPIRY = Instant.parse("2026-11-27T10:00:00Z");

    /** Grants at once; lists a fixed set of holders; records what it was asked to abandon. */
    private static final class ListingBackend implements LockBackend {
        final List<LockRequest> requests = new CopyOnWriteArrayList<>();
        final List<LockRequest> abandoned = new CopyOnWriteArrayList<>();
        final List<LockInfo> held = new ArrayList<>();

        @Override
        public String name() {
            return "listing";
        }

        @Override
        public Optional<Grant> tryAcquire(LockRequest request) {
            requests.add(request);
            return Optional.of(Grant.of(request, 1, EXPIRY));
        }

        @Override
        public Optional<Grant> renew(Grant grant, Duration leaseTime) {
            return Optional.of(grant);
        }

        @Override
        public boolean release(Grant grant) {
            return true;
        }

        @Override
        public void abandon(LockRequest request) {
            abandoned.add(request);
        }

        @Override
        public List<LockInfo> list(String prefix) {
            return held.stream().filter(info -> info.name().startsWith(prefix)).toList();
        }

        @Override
        public void close() {}
    }

    private static Holder holder(String owner, long token) {
        return Holder.of(owner, "app on host pid 1 thread t-" + token, token, EXPIRY);
    }

    @Test
    void everyRequestCarriesTheClientNameHostProcessAndThread() throws Exception {
        ListingBackend backend = new ListingBackend();
        try (ClientCore client = new ClientCore(
                backend, LockOptions.builder().clientName("billing").build())) {
            Thread named = new Thread(() -> client.lock("a").acquire().close(), "nightly-job");
            named.start();
            Await.condition("the named thread's acquire and release", TestTime.grant(), () -> !named.isAlive());
            Thread unnamed = new Thread(() -> client.lock("b").acquire().close(), "x".repeat(200) + "\u0007");
            unnamed.start();
            Await.condition("the unnamed thread's acquire and release", TestTime.grant(), () -> !unnamed.isAlive());
        }
        String first = backend.requests.get(0).holder();
        assertThat(first)
                .startsWith("billing on ")
                .contains(" pid " + ProcessHandle.current().pid() + " ")
                .endsWith(" thread nightly-job");
        String second = backend.requests.get(1).holder();
        assertThat(second)
                .hasSize(LockRequest.HOLDER_MAX_LENGTH)
                .startsWith("billing on ")
                .doesNotContain("\u0007");
    }

    @Test
    void aForcedReleaseAbandonsEachHolderOfTheNameWithItsKindAndLogsWhoBrokeWhat() {
        ListingBackend backend = new ListingBackend();
        String a = "a".repeat(32);
        String b = "b".repeat(32);
        backend.held.add(LockInfo.of("jobs", LockKind.READ, List.of(holder(a, 7), holder(b, 8)))
                .withWaiters(OptionalInt.of(2)));
        backend.held.add(
                LockInfo.of("jobs", LockKind.PERMIT, List.of(holder(a, 3))).withPermits(5));
        backend.held.add(LockInfo.of("jobs-2", LockKind.MUTEX, List.of(holder(b, 9))));
        String log;
        List<LockInfo> broken;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (LockAdmin admin =
                Clients.admin(backend, LockOptions.builder().clientName("ops").build())) {
            broken = admin.forceRelease("jobs");
        } finally {
            System.setErr(err);
        }
        log = captured.toString(StandardCharsets.UTF_8);

        assertThat(broken).extracting(LockInfo::kind).containsExactly(LockKind.READ, LockKind.PERMIT);
        assertThat(backend.abandoned)
                .extracting(LockRequest::name, LockRequest::ownerId, LockRequest::kind, LockRequest::permits)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("jobs", a, LockKind.READ, 1),
                        org.assertj.core.groups.Tuple.tuple("jobs", b, LockKind.READ, 1),
                        org.assertj.core.groups.Tuple.tuple("jobs", a, LockKind.PERMIT, 5));
        assertThat(log)
                .contains("forced release of 'jobs' on listing by ops on ")
                .contains("app on host pid 1 thread t-7 (owner " + a + ", fencing token 7)")
                .contains("broke the permit held by");
    }

    @Test
    void aForcedReleaseOfOneOwnerLeavesTheOthers() {
        ListingBackend backend = new ListingBackend();
        String a = "a".repeat(32);
        String b = "b".repeat(32);
        backend.held.add(LockInfo.of("sem", LockKind.PERMIT, List.of(holder(a, 1), holder(b, 2)))
                .withPermits(3));
        try (LockAdmin admin = Clients.admin(backend, LockOptions.defaults())) {
            assertThat(admin.forceRelease("sem", b))
                    .flatExtracting(LockInfo::owners)
                    .containsExactly(b);
            assertThat(admin.forceRelease("other")).isEmpty();
            assertThatThrownBy(() -> admin.forceRelease("sem", "")).hasMessageContaining("'sem' on listing");
        }
        assertThat(backend.abandoned).extracting(LockRequest::ownerId).containsExactly(b);
    }

    @Test
    void lockInfoKeepsItsInvariants() {
        Holder one = holder("a".repeat(32), 4);
        Holder two = holder("b".repeat(32), 6);
        assertThatThrownBy(() -> LockInfo.of("x", LockKind.MUTEX, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockInfo.of("x", LockKind.WRITE, List.of(one, two)))
                .isInstanceOf(IllegalArgumentException.class);
        LockInfo readers = LockInfo.of("x", LockKind.READ, List.of(one, two)).withWaiters(OptionalInt.of(0));
        assertThat(readers.mode()).isEqualTo(LockMode.SHARED);
        assertThat(readers.fencingToken()).isEqualTo(6);
        assertThat(readers.owners()).containsExactly(one.ownerId(), two.ownerId());
        LockInfo plain = LockInfo.of("x", LockKind.MUTEX, List.of(one));
        assertThat(plain.permits()).isEqualTo(1);
        assertThat(plain.waiters()).isEmpty();
    }

    @Test
    void aBackendThatCannotListSaysSo() {
        LockBackend plain = new LockBackend() {
            @Override
            public String name() {
                return "plain";
            }

            @Override
            public Optional<Grant> tryAcquire(LockRequest request) {
                return Optional.empty();
            }

            @Override
            public Optional<Grant> renew(Grant grant, Duration leaseTime) {
                return Optional.empty();
            }

            @Override
            public boolean release(Grant grant) {
                return false;
            }

            @Override
            public void close() {}
        };
        try (LockAdmin admin = Clients.admin(plain, LockOptions.defaults())) {
            assertThatThrownBy(() -> admin.locks(""))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("plain cannot list its locks");
            assertThatThrownBy(() -> admin.forceRelease("x")).isInstanceOf(UnsupportedOperationException.class);
        }
    }
}
