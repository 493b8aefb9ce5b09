package dev.baton.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The key names one client uses in the lock queues: {@code <prefix><client tag>-<slot>}, where the
 * tag is random per client and the slot the lowest number this client has free on that lock. A name
 * is used again only once its last key is known deleted, so that an attempt never takes an older
 * key for its own.
 *
 * <p>Why not a new name per attempt (its owner id): etcd keeps an index entry for every deleted key
 * until it compacts its history, and each acquire lists the lock's prefix, so a lock taken many times
 * would make every listing range over all the keys it ever had, each acquire slower than the last
 * ({@code docs/design/etcd.md}). etcd's own concurrency mutex reuses
 * one key per lease for the same reason. The owner id goes into the key's value.
 */
final class EtcdKeySlots {
    private final EtcdKeys keys;
    private final String tag = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, BitSet> used = new HashMap<>();
    private final Map<ByteSequence, Claim> claims = new HashMap<>();
    private final Map<String, ByteSequence> byOwner = new HashMap<>();

    /** {@code prefix}: the lock's or the semaphore's ({@link EtcdKeys}), whose slots are counted apart. */
    private record Claim(String prefix, int slot, String owner) {}

    EtcdKeySlots(EtcdKeys keys) {
        this.keys = keys;
    }

    /** A key name of lock {@code name} that no key of this client has now, for the attempt {@code owner}. */
    ByteSequence claim(String name, String owner) {
        return claimUnder(keys.prefixText(name), owner);
    }

    /** A key name under {@code prefix} (a lock's or a semaphore's) that no key of this client has now. */
    ByteSequence claimUnder(String prefix, String owner) {
        lock.lock();
        try {
            BitSet slots = used.computeIfAbsent(prefix, n -> new BitSet());
            int slot = slots.nextClearBit(0);
            slots.set(slot);
            ByteSequence key = ByteSequence.from(prefix + tag + "-" + slot, StandardCharsets.UTF_8);
            claims.put(key, new Claim(prefix, slot, owner));
            byOwner.put(owner, key);
            return key;
        } finally {
            lock.unlock();
        }
    }

    /** The key the attempt {@code owner} claimed and that is not yet known deleted, or null. */
    ByteSequence keyOf(String owner) {
        lock.lock();
        try {
            return byOwner.get(owner);
        } finally {
            lock.unlock();
        }
    }

    /** {@code key} is known deleted: its name may be used again. */
    void deleted(ByteSequence key) {
        lock.lock();
        try {
            Claim claim = claims.remove(key);
            if (claim == null) {
                return;
            }
            byOwner.remove(claim.owner(), key);
            BitSet slots = used.get(claim.prefix());
            slots.clear(claim.slot());
            if (slots.isEmpty()) {
                used.remove(claim.prefix());
            }
        } finally {
            lock.unlock();
        }
    }
}
