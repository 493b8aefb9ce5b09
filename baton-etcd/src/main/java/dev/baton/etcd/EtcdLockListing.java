package dev.baton.etcd;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.OptionsUtil;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Finds held locks and semaphores for operators ({@link dev.baton.spi.LockBackend#list}, {@link
 * dev.baton.spi.LockBackend#inspect}, {@link dev.baton.spi.LockBackend#forceRelease}) by ranging over
 * the backend's own keys ({@link EtcdKeys}). The name encoding is a prefix code, so the names under a
 * prefix are exactly the keys under {@code <root>/<encoded prefix>}: a list reads those (and {@code
 * <root>/%sem/<encoded prefix>} for semaphores) and nothing else, in pages of {@value #PAGE} keys, all
 * at the revision of the first page (a snapshot). The values come with the keys: the kind, which
 * decides who holds a lock's queue, is in the value, so a keys-only pass would need a second read
 * of nearly every queue head; only the waiters' values are read for nothing, and their number is
 * the count a listing reports anyway.
 *
 * <p>Per lock: its keys by create revision; the holders are the first key, or the read keys before
 * the first exclusive one, and every other key waits. Per semaphore of {@code N} permits (its count
 * key): the first {@code N} keys hold, the others wait. Expiry: the holder's etcd lease's remaining
 * TTL (one request per distinct lease, sent together); a holder whose lease etcd no longer has is
 * left out, as its key is about to go.
 */
final class EtcdLockListing {
    private static final int PAGE = 1000;
    private static final ByteSequence NUL = ByteSequence.from(new byte[] {0});

    private final EtcdCalls calls;
    private final EtcdKeys keys;

    EtcdLockListing(EtcdCalls calls, EtcdKeys keys) {
        this.calls = calls;
        this.keys = keys;
    }

    /**
     * A holder, its key (whose create revision is the holder's fencing token) and the id of the etcd
     * lease the key is on.
     */
    record HeldEntry(Holder holder, ByteSequence key, long lease) {}

    /** One held lock or semaphore as found. */
    record Found(String name, LockKind kind, List<HeldEntry> holders, int permits, int waiters) {
        LockInfo info() {
            return LockInfo.of(
                            name, kind, holders.stream().map(HeldEntry::holder).toList())
                    .withPermits(permits)
                    .withWaiters(OptionalInt.of(waiters));
        }
    }

    /** How {@link #list} finds the locks, for {@code baton locks}. */
    String method() {
        return "ranges over the keys under " + keys.rootText() + "<prefix> and " + keys.semaphoresText() + "<prefix>, "
                + PAGE + " per page at one revision, and reads the holders' lease TTLs";
    }

    /** Every held lock and semaphore whose name starts with {@code prefix}, sorted by name and kind. */
    List<LockInfo> list(String prefix) throws InterruptedException {
        String subject = calls.describe(prefix + "*");
        long deadline = calls.deadline();
        List<KeyValue> kvs = new ArrayList<>();
        long revision = range(subject, keys.lockRangeText(prefix), 0, deadline, kvs);
        if (!prefix.isEmpty()) {
            // With an empty prefix the semaphores' keys are inside the first range already.
            range(subject, keys.semaphoresText() + EtcdKeys.encode(prefix), revision, deadline, kvs);
        }
        return describe(subject, kvs, name -> name.startsWith(prefix), deadline).stream()
                .map(Found::info)
                .sorted(Comparator.comparing(LockInfo::name).thenComparing(LockInfo::kind))
                .toList();
    }

    /** Lock {@code name} (and semaphore {@code name} if asked), in one read: empty when not held. */
    List<Found> find(String name, boolean semaphoreToo) throws InterruptedException {
        String subject = calls.describe(name);
        long deadline = calls.deadline();
        GetOption all = GetOption.builder().isPrefix(true).build();
        List<Op> reads = new ArrayList<>(List.of(Op.get(keys.prefix(name), all)));
        if (semaphoreToo) {
            reads.add(Op.get(bytes(keys.permitPrefixText(name)), all));
            reads.add(Op.get(bytes(keys.permitCountText(name)), GetOption.DEFAULT));
        }
        TxnResponse answer = calls.callAbout(subject, "reading the queue", deadline, () -> calls.client
                .getKVClient()
                .txn()
                .Then(reads.toArray(Op[]::new))
                .commit());
        List<KeyValue> kvs = new ArrayList<>();
        answer.getGetResponses().forEach(read -> kvs.addAll(read.getKvs()));
        return describe(subject, kvs, name::equals, deadline);
    }

    /**
     * Reads every key under {@code prefixText} into {@code into}, a page at a time, at {@code
     * revision} (0: the current one); returns the revision read at.
     */
    private long range(String subject, String prefixText, long revision, long deadline, List<KeyValue> into)
            throws InterruptedException {
        ByteSequence from = bytes(prefixText);
        ByteSequence end = OptionsUtil.prefixEndOf(from);
        long at = revision;
        while (true) {
            GetOption.Builder option = GetOption.builder().withRange(end).withLimit(PAGE);
            if (at > 0) {
                option.withRevision(at);
            }
            ByteSequence start = from;
            GetOption page = option.build();
            GetResponse read = calls.callAbout(subject, "listing locks", deadline, () -> calls.client
                    .getKVClient()
                    .get(start, page));
            if (at == 0) {
                at = read.getHeader().getRevision();
            }
            into.addAll(read.getKvs());
            if (!read.isMore() || read.getKvs().isEmpty()) {
                return at;
            }
            from = read.getKvs().get(read.getKvs().size() - 1).getKey().concat(NUL);
        }
    }

    private List<Found> describe(String subject, List<KeyValue> kvs, Predicate<String> wanted, long deadline)
            throws InterruptedException {
        String rootText = keys.rootText();
        String semaphoresText = keys.semaphoresText();
        Map<String, List<KeyValue>> locks = new TreeMap<>();
        Map<String, List<KeyValue>> semaphores = new TreeMap<>();
        Map<String, Integer> counts = new HashMap<>();
        for (KeyValue kv : kvs) {
            String key = kv.getKey().toString(StandardCharsets.UTF_8);
            boolean semaphore = key.startsWith(semaphoresText);
            String rest = key.substring(semaphore ? semaphoresText.length() : rootText.length());
            int slash = rest.indexOf('/');
            String name = EtcdKeys.decode(slash < 0 ? rest : rest.substring(0, slash));
            if (name == null || !wanted.test(name) || (slash >= 0 && rest.indexOf('/', slash + 1) >= 0)) {
                continue;
            }
            if (semaphore && slash < 0) {
                counts.put(name, parseCount(kv.getValue()));
            } else if (slash >= 0) {
                (semaphore ? semaphores : locks)
                        .computeIfAbsent(name, n -> new ArrayList<>())
                        .add(kv);
            }
        }
        List<Found> found = new ArrayList<>();
        Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> leases = new HashMap<>();
        for (Map.Entry<String, List<KeyValue>> lock : locks.entrySet()) {
            List<KeyValue> queue = byRevision(lock.getValue());
            List<KeyValue> holders = new ArrayList<>();
            for (KeyValue kv : queue) {
                boolean read = EtcdKeys.isRead(kv.getValue());
                if (!read && !holders.isEmpty()) {
                    break;
                }
                holders.add(kv);
                if (!read) {
                    break;
                }
            }
            found.add(pending(lock.getKey(), EtcdKeys.kindOf(holders.get(0).getValue()), holders, 1, queue, leases));
        }
        for (Map.Entry<String, List<KeyValue>> semaphore : semaphores.entrySet()) {
            List<KeyValue> queue = byRevision(semaphore.getValue());
            int count = counts.getOrDefault(semaphore.getKey(), -1);
            int permits = count > 0 ? count : queue.size();
            List<KeyValue> holders = queue.subList(0, Math.min(permits, queue.size()));
            found.add(pending(semaphore.getKey(), LockKind.PERMIT, holders, permits, queue, leases));
        }
        return withExpiry(subject, found, leases, deadline);
    }

    /** A lock as found, with holders whose expiry is not known yet; asks for their leases' TTLs. */
    private Found pending(
            String name,
            LockKind kind,
            List<KeyValue> holders,
            int permits,
            List<KeyValue> queue,
            Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> leases) {
        List<HeldEntry> entries = new ArrayList<>(holders.size());
        for (KeyValue kv : holders) {
            leases.computeIfAbsent(
                    kv.getLease(),
                    id -> id == 0
                            ? CompletableFuture.completedFuture(null)
                            : calls.client.getLeaseClient().timeToLive(id, LeaseOption.DEFAULT));
            Holder holder = Holder.of(
                    EtcdKeys.ownerOf(kv.getKey(), kv.getValue()),
                    EtcdKeys.descriptionOf(kv.getValue()),
                    kv.getCreateRevision(),
                    Instant.EPOCH);
            entries.add(new HeldEntry(holder, kv.getKey(), kv.getLease()));
        }
        return new Found(name, kind, entries, permits, queue.size() - holders.size());
    }

    /** Fills in each holder's expiry from its lease's TTL; leaves out holders whose lease is gone. */
    private List<Found> withExpiry(
            String subject,
            List<Found> found,
            Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> leases,
            long deadline)
            throws InterruptedException {
        Map<Long, Long> ttls = new HashMap<>();
        for (Map.Entry<Long, CompletableFuture<LeaseTimeToLiveResponse>> lease : leases.entrySet()) {
            CompletableFuture<LeaseTimeToLiveResponse> sent = lease.getValue();
            boolean[] first = {true};
            LeaseTimeToLiveResponse answer = calls.callAbout(subject, "reading the holders' leases", deadline, () -> {
                if (first[0]) {
                    first[0] = false;
                    return sent;
                }
                return calls.client.getLeaseClient().timeToLive(lease.getKey(), LeaseOption.DEFAULT);
            });
            ttls.put(lease.getKey(), answer == null ? 0 : answer.getTTL());
        }
        Instant now = Instant.now();
        List<Found> live = new ArrayList<>();
        for (Found lock : found) {
            List<HeldEntry> holders = new ArrayList<>();
            for (HeldEntry entry : lock.holders()) {
                long ttl = ttls.get(entry.lease());
                if (ttl >= 0) {
                    Holder holder = entry.holder();
                    holders.add(new HeldEntry(
                            Holder.of(
                                    holder.ownerId(),
                                    holder.description(),
                                    holder.fencingToken(),
                                    now.plusSeconds(ttl)),
                            entry.key(),
                            entry.lease()));
                }
            }
            if (!holders.isEmpty()) {
                live.add(new Found(lock.name(), lock.kind(), holders, lock.permits(), lock.waiters()));
            }
        }
        return live;
    }

    private static List<KeyValue> byRevision(List<KeyValue> kvs) {
        List<KeyValue> sorted = new ArrayList<>(kvs);
        sorted.sort(Comparator.comparingLong(KeyValue::getCreateRevision));
        return sorted;
    }

    private static int parseCount(ByteSequence value) {
        try {
            return Integer.parseInt(value.toString(StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
