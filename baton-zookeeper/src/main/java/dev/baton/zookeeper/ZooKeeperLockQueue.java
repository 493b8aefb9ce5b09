package dev.baton.zookeeper;

import dev.baton.LockKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * The queue of one lock path, in Apache Curator's wire format, so that Curator's recipes and Baton
 * see the same queue:
 *
 * <ul>
 *   <li>Every entry is an ephemeral sequential child {@code _c_<uuid>-<marker><sequence>}: the
 *       {@code _c_<uuid>-} prefix is Curator's "protection" prefix, which lets a client find its own
 *       node after a connection loss during create.
 *   <li>Markers follow the kind of lock asked for: {@code lock-} for a plain lock (Curator's
 *       InterProcessMutex), {@code __READ__} and {@code __WRIT__} for the two sides of a read/write
 *       lock (InterProcessReadWriteLock; both eight characters long so that Curator can strip
 *       either).
 *   <li>Order: by the ten-digit sequence suffix, which ZooKeeper assigns from one counter per parent,
 *       so a node created later always sorts later, whatever its marker. Children without a sequence
 *       suffix are no queue entries (Curator's InterProcessSemaphoreMutex keeps its {@code locks} and
 *       {@code leases} nodes there) and are left out.
 *   <li>An exclusive entry (any marker but {@code __READ__}, also one Baton does not know) holds when
 *       it is first; a read entry holds when no exclusive entry precedes it (Curator's rules for the
 *       mutex, the write lock and the read lock).
 * </ul>
 *
 * <p>So Baton's locks of both kinds on one name exclude each other. Curator's recipes do not look
 * that far: each sorts by the text after its own markers, so the other recipe's nodes sort after
 * all of its own and never block it. A Curator mutex therefore ignores Baton's read/write nodes, and
 * a Curator read/write lock ignores Baton's mutex nodes.
 */
final class ZooKeeperLockQueue {
    static final String MUTEX_MARKER = "lock-";
    static final String READ_MARKER = "__READ__";
    static final String WRITE_MARKER = "__WRIT__";
    /**
     * A semaphore permit's lease node (Curator's InterProcessSemaphoreV2). Lease nodes live under a
     * semaphore's {@code leases} node, never in a lock queue: see {@link ZooKeeperPermits}.
     */
    static final String LEASE_MARKER = "lease-";

    private static final int SEQUENCE_DIGITS = 10;

    /** Sorts children like Curator: by the sequence suffix, compared as text. */
    static final Comparator<String> ORDER = Comparator.comparing(ZooKeeperLockQueue::sequence);

    private ZooKeeperLockQueue() {}

    /**
     * The node name prefix for one attempt (the sequence is appended by ZooKeeper): the marker of the
     * Curator recipe that matches the kind asked for, so that a Curator client of that recipe on the
     * same path sees the node.
     */
    static String nodePrefix(String ownerId, LockKind kind) {
        return protectionPrefix(ownerId) + marker(kind);
    }

    static String marker(LockKind kind) {
        return switch (kind) {
            case MUTEX -> MUTEX_MARKER;
            case READ -> READ_MARKER;
            case WRITE -> WRITE_MARKER;
            case PERMIT -> LEASE_MARKER;
        };
    }

    /**
     * {@code _c_<uuid>-}: Curator's protection prefix, with the UUID taken from the owner id (128
     * random bits), so that an attempt can always find the node it may have created.
     */
    static String protectionPrefix(String ownerId) {
        if (isAsciiHex(ownerId, 32)) {
            // Baton's own owner ids: the UUID of the 128 bits they spell is the id itself, lower-cased
            // and dashed like UUID.toString(), written here without parsing it (one per attempt).
            StringBuilder out = new StringBuilder(40).append("_c_");
            for (int i = 0; i < 32; i++) {
                if (i == 8 || i == 12 || i == 16 || i == 20) {
                    out.append('-');
                }
                out.append(Character.toLowerCase(ownerId.charAt(i)));
            }
            return out.append('-').toString();
        }
        UUID uuid;
        if (ownerId.length() == 32 && ownerId.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            uuid = new UUID(
                    Long.parseUnsignedLong(ownerId.substring(0, 16), 16),
                    Long.parseUnsignedLong(ownerId.substring(16), 16));
        } else {
            uuid = UUID.nameUUIDFromBytes(ownerId.getBytes(StandardCharsets.UTF_8));
        }
        return "_c_" + uuid + "-";
    }

    private static boolean isAsciiHex(String text, int length) {
        if (text.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }

    static String sequence(String node) {
        return node.length() >= SEQUENCE_DIGITS ? node.substring(node.length() - SEQUENCE_DIGITS) : node;
    }

    static boolean isRead(String node) {
        return node.contains(READ_MARKER);
    }

    /** The queue entries among {@code children}, in queue order. */
    static List<String> sorted(List<String> children) {
        List<String> entries = new ArrayList<>(children.size());
        for (String child : children) {
            if (isQueueEntry(child)) {
                entries.add(child);
            }
        }
        entries.sort(ORDER);
        return entries;
    }

    /** Whether {@code child} ends with a sequence suffix, as every sequential node does. */
    static boolean isQueueEntry(String child) {
        if (child.length() <= SEQUENCE_DIGITS) {
            return false;
        }
        for (int i = child.length() - SEQUENCE_DIGITS; i < child.length(); i++) {
            char c = child.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * The entries that keep {@code own} (at {@code index} in the sorted queue) from holding: every
     * entry before it for an exclusive entry, every exclusive entry before it for a read entry.
     */
    static List<String> blockers(List<String> sorted, int index, boolean ownIsRead) {
        List<String> blocking = new ArrayList<>();
        for (int i = 0; i < index; i++) {
            String node = sorted.get(i);
            if (!ownIsRead || !isRead(node)) {
                blocking.add(node);
            }
        }
        return blocking;
    }

    /** The holders of a queue: the first entry, or every read entry before the first exclusive one. */
    static List<String> holders(List<String> sorted) {
        List<String> holding = new ArrayList<>();
        for (String node : sorted) {
            if (!isRead(node)) {
                if (holding.isEmpty()) {
                    holding.add(node);
                }
                break;
            }
            holding.add(node);
        }
        return holding;
    }
}
