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
    /**
     * The slots in use under each prefix that has had more than slot 0 in use at once; a prefix not
     * here has at most slot 0 in use (then {@link #claims} has its key). A client that holds many
     * locks, one key each, so keeps no per-lock entry here.
     */
    private final Map<String, BitSet> used = new HashMap<>();

    private final Map<ByteSequence, Claim> claims = new HashMap<>();
    private final Map<String, ByteSequence> byOwner = new HashMap<>();

    /** The prefix is not kept: {@link #deleted} finds it from the key when {@link #used} needs it. */
    private record Claim(int slot, String owner) {}

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
            ByteSequence first = key(prefix, 0);
            BitSet slots = used.get(prefix);
            ByteSequence key;
            int slot;
            if (slots == null && !claims.containsKey(first)) {
                slot = 0;
                key = first;
            } else {
                if (slots == null) {
                    slots = new BitSet();
                    slots.set(0);
                    used.put(prefix, slots);
                }
                slot = slots.nextClearBit(0);
                slots.set(slot);
                key = slot == 0 ? first : key(prefix, slot);
            }
            claims.put(key, new Claim(slot, owner));
            byOwner.put(owner, key);
            return key;
        } finally {
            lock.unlock();
        }
    }

    private ByteSequence key(String prefix, int slot) {
        return ByteSequence.from(prefix + tag + "-" + slot, StandardCharsets.UTF_8);
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
            if (used.isEmpty()) {
                return;
            }
            String text = key.toString(StandardCharsets.UTF_8);
            String prefix = text.substring(
                    0,
                    text.length()
                            - tag.length()
                            - 1
                            - Integer.toString(claim.slot()).length());
            BitSet slots = used.get(prefix);
            if (slots == null) {
                return;
            }
            slots.clear(claim.slot());
            if (slots.isEmpty()) {
                used.remove(prefix);
            }
        } finally {
            lock.unlock();
        }
    }
}
