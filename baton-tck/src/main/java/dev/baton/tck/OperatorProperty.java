package dev.baton.tck;

import static dev.baton.tck.KitTime.SLACK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.Baton;
import dev.baton.Holder;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The kit's operator property ({@link LockBackendContract.Operators}): a grant records who holds it
 * (client name, host, process, thread) and {@link LockAdmin} reports it; {@link LockAdmin#locks}
 * lists the locks, read/write locks and semaphores under a prefix with their holders, tokens and
 * expiry, and their waiters where the backend counts them; {@link LockAdmin#forceRelease} frees a
 * lock at once, the next holder's token is higher, the broken holder is told within one lease
 * time, and its own release afterwards leaves the new holder alone.
 */
abstract class OperatorProperty {
    private final LockBackendContract contract;

    OperatorProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    private LockAdmin admin() {
        return contract.track(Baton.admin(contract.fixture().uri(), contract.options()));
    }

    private boolean claims(Capability capability) {
        return contract.fixture().capabilities().contains(capability);
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    /** The URI with a {@code clientName} parameter added, whatever its own parameter syntax. */
    private static String withClientName(String uri, String clientName) {
        return uri + (uri.contains("?") ? "&" : "?") + "clientName=" + clientName;
    }

    private static Holder holderWithToken(LockInfo info, long token) {
        return info.holders().stream()
                .filter(holder -> holder.fencingToken() == token)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no holder with token " + token + " in " + info));
    }

    private static void assertHolder(Holder holder, long token) {
        assertThat(holder.ownerId()).matches("[0-9a-f]{32}");
        assertThat(holder.fencingToken()).isEqualTo(token);
        assertThat(holder.expiresAt()).isAfter(Instant.now().minus(SLACK));
    }

    @Test
    void aGrantRecordsItsClientNameHostProcessAndThread() throws Exception {
        String name = contract.lockName();
        String clientName = "kit-" + shortId();
        LockClient client = contract.client(
                contract.options().toBuilder().clientName(clientName).build());
        Lease held = contract.inThread(() -> client.lock(name).acquire(contract.grant()))
                .get();

        LockInfo info = admin().status(name).orElseThrow(() -> new AssertionError(name + " is held"));
        Holder holder = info.holders().get(0);
        assertHolder(holder, held.fencingToken());
        assertThat(holder.description())
                .contains(clientName)
                .contains("pid " + ProcessHandle.current().pid())
                .contains("thread tck-worker");
        held.close();
        assertThat(admin().status(name)).isEmpty();
    }

    @Test
    void theUrisClientNameParameterNamesTheHolder() {
        String name = contract.lockName();
        String clientName = "kit-uri-" + shortId();
        LockClient client = contract.clientAt(withClientName(contract.fixture().uri(), clientName), contract.options());
        try (Lease held = client.lock(name).acquire(contract.grant())) {
            LockInfo info = admin().status(name).orElseThrow(() -> new AssertionError(name + " is held"));
            assertThat(info.holders().get(0).description()).startsWith(clientName + " on ");
            assertThat(info.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void locksListsLocksReadWriteLocksAndSemaphoresUnderAPrefix() {
        String prefix = contract.lockName() + "/";
        Lease outside = contract.client().lock(contract.lockName()).acquire(contract.grant());
        Lease lock = contract.client().lock(prefix + "lock").acquire(contract.grant());
        LockAdmin admin = admin();

        List<LockInfo> listed = admin.locks(prefix);
        assertThat(listed).extracting(LockInfo::name).doesNotContain(outside.name());
        LockInfo lockInfo = only(listed, prefix + "lock", LockKind.MUTEX);
        assertThat(lockInfo.permits()).isEqualTo(1);
        assertHolder(lockInfo.holders().get(0), lock.fencingToken());

        if (claims(Capability.SHARED_MODE)) {
            Lease reader =
                    contract.client().readWriteLock(prefix + "rw").readLock().acquire(contract.grant());
            Lease otherReader =
                    contract.client().readWriteLock(prefix + "rw").readLock().acquire(contract.grant());
            Lease writer =
                    contract.client().readWriteLock(prefix + "w").writeLock().acquire(contract.grant());
            listed = admin.locks(prefix);
            LockInfo readers = only(listed, prefix + "rw", LockKind.READ);
            assertThat(readers.holders()).hasSize(2);
            assertHolder(holderWithToken(readers, reader.fencingToken()), reader.fencingToken());
            assertHolder(holderWithToken(readers, otherReader.fencingToken()), otherReader.fencingToken());
            LockInfo written = listed.stream()
                    .filter(info -> info.name().equals(prefix + "w"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no write lock in " + admin.locks(prefix)));
            assertThat(written.kind()).isIn(LockKind.WRITE, LockKind.MUTEX);
            assertHolder(written.holders().get(0), writer.fencingToken());
            reader.close();
            otherReader.close();
            writer.close();
        }
        if (claims(Capability.SEMAPHORES)) {
            Lease first = contract.client().semaphore(prefix + "sem", 3).acquire(contract.grant());
            Lease second = contract.client().semaphore(prefix + "sem", 3).acquire(contract.grant());
            LockInfo permits = only(admin.locks(prefix), prefix + "sem", LockKind.PERMIT);
            assertThat(permits.permits()).isEqualTo(3);
            assertThat(permits.holders()).hasSize(2);
            assertHolder(holderWithToken(permits, first.fencingToken()), first.fencingToken());
            assertHolder(holderWithToken(permits, second.fencingToken()), second.fencingToken());
            first.close();
            second.close();
        }
        lock.close();
        assertThat(admin.locks(prefix)).isEmpty();
        outside.close();
    }

    private static LockInfo only(List<LockInfo> listed, String name, LockKind kind) {
        List<LockInfo> matching =
                listed.stream().filter(info -> info.name().equals(name)).toList();
        assertThat(matching).as("entries for %s in %s", name, listed).hasSize(1);
        assertThat(matching.get(0).kind()).isEqualTo(kind);
        return matching.get(0);
    }

    @Test
    void waitersAreCountedWhereTheBackendCanTell() throws Exception {
        String prefix = contract.lockName() + "/";
        String name = prefix + "busy";
        Lease held = contract.client().lock(name).acquire(contract.grant());
        LockAdmin admin = admin();
        OptionalInt before = only(admin.locks(prefix), name, LockKind.MUTEX).waiters();
        assumeTrue(before.isPresent(), admin.backendName() + " does not count waiters (LockInfo.waiters() empty)");
        assertThat(before.getAsInt()).isZero();

        LockClient waiterClient = contract.client();
        Future<Long> waiter = contract.inThread(() -> {
            try (Lease lease = waiterClient.lock(name).acquire(Duration.ofSeconds(30))) {
                return lease.fencingToken();
            }
        });
        KitTime.Stopwatch waited = KitTime.stopwatch();
        OptionalInt counted = before;
        while (counted.orElse(0) < 1 && !waited.hasPassed(SLACK)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            counted = only(admin.locks(prefix), name, LockKind.MUTEX).waiters();
        }
        assertThat(counted).as("waiters of %s once a client waits", name).hasValue(1);
        held.close();
        assertThat(Await.result(waiter, contract.grant())).isGreaterThan(held.fencingToken());
    }

    @Test
    void aForcedReleaseFreesTheLockRaisesTheNextTokenAndTellsTheBrokenHolder() throws Exception {
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        Lease broken = contract.client().lock(name).acquire(contract.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        broken.onLost(lost::complete);

        List<LockInfo> released = admin().forceRelease(name);
        assertThat(released).hasSize(1);
        assertThat(released.get(0).name()).isEqualTo(name);
        assertThat(released.get(0).fencingToken()).isEqualTo(broken.fencingToken());

        // Free now, not at the end of the broken holder's lease (which it keeps renewing).
        Lease next = contract.client()
                .lock(name)
                .tryAcquire()
                .orElseThrow(() -> new AssertionError(
                        name + " is still held right after its forced release: " + admin().status(name)));
        assertThat(next.fencingToken()).isGreaterThan(broken.fencingToken());
        assertThat(Await.result(lost, lease.plus(SLACK))).hasMessageContaining(name);
        assertThat(broken.isValid()).isFalse();

        broken.close(); // the broken holder's own release must leave the new holder alone
        assertThat(next.isValid()).isTrue();
        assertThat(admin().status(name)).map(LockInfo::fencingToken).hasValue(next.fencingToken());
        assertThat(contract.client().lock(name).tryAcquire()).isEmpty();
        next.close();
    }

    @Test
    void aForcedReleaseBreaksEveryReader() throws Exception {
        assumeTrue(claims(Capability.SHARED_MODE), "no read/write locks (Capability.SHARED_MODE)");
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        Lease first = contract.client().readWriteLock(name).readLock().acquire(contract.grant());
        Lease second = contract.client().readWriteLock(name).readLock().acquire(contract.grant());
        CompletableFuture<LockLostException> firstLost = new CompletableFuture<>();
        CompletableFuture<LockLostException> secondLost = new CompletableFuture<>();
        first.onLost(firstLost::complete);
        second.onLost(secondLost::complete);

        List<LockInfo> released = admin().forceRelease(name);
        assertThat(released).flatExtracting(LockInfo::holders).hasSize(2);
        try (Lease writer = contract.client().readWriteLock(name).writeLock().acquire(contract.grant())) {
            assertThat(writer.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
            Await.result(firstLost, lease.plus(SLACK));
            Await.result(secondLost, lease.plus(SLACK));
        }
    }

    @Test
    void aForcedReleaseOfOneOwnerLeavesTheOtherPermitsHeld() throws Exception {
        assumeTrue(claims(Capability.SEMAPHORES), "no semaphores (Capability.SEMAPHORES)");
        String name = contract.lockName();
        Duration lease = contract.lease(KitTime.LEASE);
        Lease broken = contract.client().semaphore(name, 2).acquire(contract.grant());
        Lease kept = contract.client().semaphore(name, 2).acquire(contract.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        broken.onLost(lost::complete);
        LockAdmin admin = admin();
        LockInfo permits = only(admin.locks(name), name, LockKind.PERMIT);
        String owner = holderWithToken(permits, broken.fencingToken()).ownerId();

        List<LockInfo> released = admin.forceRelease(name, owner);
        assertThat(released).flatExtracting(LockInfo::owners).containsExactly(owner);
        Await.result(lost, lease.plus(SLACK));
        assertThat(kept.isValid()).isTrue();
        assertThat(only(admin.locks(name), name, LockKind.PERMIT).holders())
                .extracting(Holder::fencingToken)
                .containsExactly(kept.fencingToken());
        kept.close();
    }

    @Test
    void aForcedReleaseOfAFreeNameBreaksNothingAndBadArgumentsAreRefused() {
        String name = contract.lockName();
        LockAdmin admin = admin();
        assertThat(admin.forceRelease(name)).isEmpty();
        assertThat(admin.status(name)).isEmpty();
        assertThatThrownBy(() -> admin.forceRelease(name, " "))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(admin.backendName());
        assertThatThrownBy(() -> admin.forceRelease("")).isInstanceOf(LockConfigurationException.class);
        assertThatThrownBy(() -> admin.locks(null)).isInstanceOf(LockConfigurationException.class);
        assertThat(admin.locks(name)).isEmpty();
    }
}
