package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LockConfigurationException;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.testsupport.Await;
import dev.baton.testsupport.TestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leader election on the core ({@link Leadership}), with two clients on one in-memory store whose
 * leases run on the test clock: nothing expires or comes due unless the test moves the clock.
 */
@Timeout(60)
class LeadershipTest {
    private static final Duration LEASE = Duration.ofMillis(600);
    /**
     * The longest a held renewal waits for the test to let it go: a cap so that a failed test leaves
     * no thread behind, longer than any of the test's own waits.
     */
    private static final Duration HELD_AT_MOST = Duration.ofSeconds(30);

    /** Locks shared by every backend made on it, expiring on the test clock. */
    private static final class Store {
        record Entry(String owner, long token, long expiresAt) {}

        final AtomicLong clock = new AtomicLong();
        final Map<String, Entry> entries = new ConcurrentHashMap<>();
        final AtomicLong tokens = new AtomicLong();
        final AtomicInteger attempts = new AtomicInteger();
        volatile boolean down;
        volatile CountDownLatch renewalsHeld = new CountDownLatch(0);

        LockBackend backend() {
            return new LockBackend() {
                @Override
                public String name() {
                    return "store";
                }

                @Override
                public Optional<Grant> tryAcquire(LockRequest request) {
                    attempts.incrementAndGet();
                    if (down) {
                        throw new LockUnavailableException("store is down");
                    }
                    long now = clock.get();
                    Entry taken = entries.compute(
                            request.name(),
                            (name, held) -> held == null || now - held.expiresAt >= 0
                                    ? new Entry(
                                            request.ownerId(),
                                            tokens.incrementAndGet(),
                                            now + request.leaseTime().toNanos())
                                    : held);
                    if (!taken.owner.equals(request.ownerId())) {
                        return Optional.empty();
                    }
                    return Optional.of(Grant.of(request, taken.token, Instant.EPOCH.plusNanos(taken.expiresAt)));
                }

                @Override
                public Optional<Grant> renew(Grant grant, Duration leaseTime) {
                    try {
                        renewalsHeld.await(HELD_AT_MOST.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    long now = clock.get();
                    Entry renewed = entries.computeIfPresent(
                            grant.name(),
                            (name, held) -> held.owner.equals(grant.ownerId()) && now - held.expiresAt < 0
                                    ? new Entry(held.owner, held.token, now + leaseTime.toNanos())
                                    : held);
                    if (renewed == null || !renewed.owner.equals(grant.ownerId()) || renewed.expiresAt - now <= 0) {
                        return Optional.empty();
                    }
                    return Optional.of(grant.withExpiresAt(Instant.EPOCH.plusNanos(renewed.expiresAt)));
                }

                @Override
                public boolean release(Grant grant) {
                    Entry held = entries.get(grant.name());
                    return held != null && held.owner.equals(grant.ownerId()) && entries.remove(grant.name(), held);
                }

                @Override
                public void close() {}
            };
        }

        String owner(String name) {
            Entry entry = entries.get(name);
            return entry == null ? null : entry.owner;
        }

        void advance(Duration by) {
            clock.addAndGet(by.toNanos());
        }
    }

    /** Records what one candidacy's listeners hear, with the thread and overlap of each call. */
    private static final class Recorder implements LeadershipListener {
        final List<String> heard = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();

        @Override
        public void elected(long epoch) {
            record("elected " + epoch);
        }

        @Override
        public void revoked(long epoch, Reason reason, LockLostException cause) {
            record("revoked " + epoch + " " + reason + (cause == null ? "" : " (cause)"));
        }

        private void record(String event) {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            threads.add(Thread.currentThread().getName());
            heard.add(event);
            inside.decrementAndGet();
        }
    }

    private final Store store = new Store();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private ClientCore client() {
        return client(LockOptions.builder()
                .leaseTime(LEASE)
                .pollInitialDelay(Duration.ofMillis(1))
                .pollMaxDelay(Duration.ofMillis(20))
                .build());
    }

    private ClientCore client(LockOptions options) {
        ClientCore client = new ClientCore(store.backend(), options, store.clock::get);
        open.add(client);
        return client;
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.condition(what, TestTime.grant(), condition);
    }

    @Test
    void theFirstCandidateLeadsAndClosingHandsOverAtOnce() throws Exception {
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        Leadership a = client().leadership("x").addListener(first).start();
        assertThat(a.awaitLeadership(TestTime.grant())).isTrue();
        assertThat(a.epoch()).hasValue(1);
        Leadership b = client().leadership("x").addListener(second).start();
        await("the second candidate to stand", () -> store.attempts.get() >= 3);
        assertThat(b.isLeader()).isFalse();
        assertThat(b.epoch()).isEmpty();

        a.close();
        assertThat(a.isLeader()).isFalse();
        Store.Entry now = store.entries.get("x");
        assertThat(now == null || now.token() != 1)
                .as("released by close() before it returned")
                .isTrue();
        assertThat(b.awaitLeadership(TestTime.grant())).isTrue();
        assertThat(b.epoch()).hasValue(2);
        assertThat(first.heard).containsExactly("elected 1", "revoked 1 RESIGNED");
        await("the second candidate's listener", () -> second.heard.equals(List.of("elected 2")));
        assertThatThrownBy(a::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("'x'");
    }

    @Test
    void isLeaderTurnsFalseAtTheValidityDeadlineByTheClockAloneThenTheCandidateStandsAgain() throws Exception {
        Recorder heard = new Recorder();
        Leadership a = client().leadership("x").addListener(heard).start();
        assertThat(a.awaitLeadership(TestTime.grant())).isTrue();
        store.renewalsHeld = new CountDownLatch(1); // a renewal now hangs, as behind a paused link

        store.advance(LEASE.minusMillis(1));
        assertThat(a.isLeader()).as("1 ms before the deadline").isTrue();
        store.advance(Duration.ofMillis(1));
        assertThat(a.isLeader())
                .as("at the deadline, whatever the renewal and watchdog threads did")
                .isFalse();
        assertThat(a.epoch()).isEmpty();
        await("the loss to be told while the renewal still hangs", () -> heard.heard.size() >= 2);
        assertThat(heard.heard.subList(0, 2)).containsExactly("elected 1", "revoked 1 LOST (cause)");

        store.renewalsHeld.countDown();
        assertThat(a.awaitLeadership(TestTime.grant()))
                .as("the candidate stands again")
                .isTrue();
        assertThat(a.epoch()).hasValue(2);
        await("the new term to be told", () -> heard.heard.size() == 3);
        assertThat(heard.heard.get(2)).isEqualTo("elected 2");
    }

    @Test
    void aLeaderReleasedByForceLearnsAtItsNextRenewalAndLeadsAgainAfterTheNewLeader() throws Exception {
        Recorder first = new Recorder();
        Leadership a = client().leadership("x").addListener(first).start();
        assertThat(a.awaitLeadership(TestTime.grant())).isTrue();
        Leadership b = client().leadership("x").start();

        store.entries.remove("x"); // an operator breaks the lock; the waiting candidate takes it
        assertThat(b.awaitLeadership(TestTime.grant())).isTrue();
        assertThat(b.epoch()).hasValue(2);
        store.advance(LEASE.dividedBy(3).plusMillis(1)); // a's next renewal comes due, and is refused
        await("the deposed leader to be told", () -> first.heard.size() == 2);
        assertThat(first.heard).containsExactly("elected 1", "revoked 1 LOST (cause)");
        assertThat(a.isLeader()).isFalse();

        b.close();
        assertThat(a.awaitLeadership(TestTime.grant()))
                .as("the deposed leader stood again")
                .isTrue();
        assertThat(a.epoch()).hasValue(3);
    }

    @Test
    void listenersRunOnTheCandidacysThreadInOrderOneAtATimeAndOneThatThrowsStopsNobody() throws Exception {
        Recorder heard = new Recorder();
        Recorder late = new Recorder();
        CountDownLatch closedFromListener = new CountDownLatch(1);
        Leadership[] self = new Leadership[1];
        LeadershipListener throwing = new LeadershipListener() {
            @Override
            public void elected(long epoch) {
                throw new IllegalStateException("a listener bug");
            }
        };
        LeadershipListener closing = new LeadershipListener() {
            @Override
            public void elected(long epoch) {
                if (epoch == 2) {
                    self[0].close(); // from a listener: must not wait for itself
                    closedFromListener.countDown();
                }
            }
        };
        ClientCore client = client();
        Leadership a =
                client.leadership("x").addListener(throwing).addListener(heard).addListener(closing);
        self[0] = a;
        a.start();
        assertThat(a.awaitLeadership(TestTime.grant())).isTrue();
        a.addListener(late);
        await("the late listener to hear of the current term", () -> late.heard.size() == 1);
        assertThat(late.heard).containsExactly("elected 1");

        store.entries.remove("x");
        store.advance(LEASE.dividedBy(3).plusMillis(1)); // refused at renewal: lost, then elected again (2)
        await("the listener's close to end", () -> closedFromListener.getCount() == 0);
        await("the resignation to be told", () -> heard.heard.size() == 4);
        assertThat(heard.heard)
                .containsExactly("elected 1", "revoked 1 LOST (cause)", "elected 2", "revoked 2 RESIGNED");
        assertThat(late.heard)
                .containsExactly("elected 1", "revoked 1 LOST (cause)", "elected 2", "revoked 2 RESIGNED");
        assertThat(heard.overlaps).hasValue(0);
        String candidateThread = ((LeaderCandidate) a).threadName();
        assertThat(heard.threads).allMatch(name -> name.equals(candidateThread + "-listener"));
        await("the released lease", () -> store.owner("x") == null);
    }

    @Test
    void aBackendThatCannotBeReachedIsTriedAgainUntilItIsBack() throws Exception {
        store.down = true;
        Leadership a = client().leadership("x").start();
        await("a few attempts", () -> store.attempts.get() >= 3);
        assertThat(a.isLeader()).isFalse();
        store.down = false;
        assertThat(a.awaitLeadership(TestTime.grant())).isTrue();
    }

    @Test
    void closingTheClientResignsItsCandidaciesAndEndsTheirThreads() throws Exception {
        Recorder heard = new Recorder();
        ClientCore first = client();
        LeaderCandidate a =
                (LeaderCandidate) first.leadership("x").addListener(heard).start();
        assertThat(a.awaitLeadership(TestTime.grant())).isTrue();
        Leadership b = client().leadership("x").start();

        first.close();
        assertThat(heard.heard).containsExactly("elected 1", "revoked 1 RESIGNED");
        assertThat(b.awaitLeadership(TestTime.grant())).isTrue();
        assertThat(b.epoch()).hasValue(2);
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(thread -> thread.getName().startsWith(a.threadName() + "-")
                        || thread.getName().equals(a.threadName()));
        assertThatThrownBy(() -> first.leadership("y")).isInstanceOf(LockUnavailableException.class);
    }

    @Test
    void badInputIsRefused() throws Exception {
        ClientCore client = client();
        assertThatThrownBy(() -> client.leadership(
                        "x", client.options().toBuilder().autoRenew(false).build()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("autoRenew");
        assertThatThrownBy(() -> client.leadership("")).isInstanceOf(LockConfigurationException.class);
        Leadership a = client.leadership("x");
        assertThat(a.awaitLeadership(Duration.ZERO)).as("not started").isFalse();
        assertThatThrownBy(() -> a.awaitLeadership(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.addListener(null)).isInstanceOf(NullPointerException.class);
        a.close();
        assertThat(a.epoch()).isEqualTo(OptionalLong.empty());
    }
}
