package dev.baton.redis;

import dev.baton.LockInfo;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Lists the locks and semaphores of one Redis deployment (a server, a Sentinel's master, a Cluster,
 * or one Redlock master) whose names start with a prefix: it scans the key space in batches ({@code
 * SCAN} with {@code MATCH} and {@code COUNT} {@value #COUNT}; on a Cluster every master in turn), and
 * reads each lock key and semaphore holders key it finds with one {@link RedisInspection} script,
 * all of a batch's scripts sent together.
 *
 * <p>Why a scan: Redis keeps no index of Baton's names, and one would cost a write per acquire. A
 * scan reads the whole key space (the {@code MATCH} pattern only filters what comes back), so it
 * costs in proportion to the number of keys in the database, in steps of {@value #COUNT} keys that
 * never block the server for long; the result is a snapshot, not a transaction (a lock taken or
 * freed during the scan may be missed or shown). The pattern is the key prefix and the encoded
 * name prefix with every glob character ({@code * ? [ ] \}) escaped, so a name may hold any of
 * them; the names found are checked again against the prefix after decoding.
 *
 * <p>Each round trip (a scan step, a batch of scripts) is bounded by the operation timeout.
 */
final class RedisLockScan {
    /** Keys per SCAN step: a few milliseconds of server time per step even on a large key space. */
    static final int COUNT = 500;

    private RedisLockScan() {}

    /**
     * What {@link dev.baton.spi.LockBackend#listingMethod} says.
     *
     * @param where for example {@code "on every master"}, or empty
     */
    static String method(RedisKeys keys, String where) {
        return "scans the keys " + keys.prefix() + "*" + (where.isEmpty() ? "" : " " + where) + " in batches of "
                + COUNT + " (SCAN)";
    }

    /** Orders a listing by name, then kind (lock before read/write before semaphore). */
    static final Comparator<LockInfo> ORDER =
            Comparator.comparing(LockInfo::name).thenComparing(LockInfo::kind);

    /**
     * The {@code MATCH} pattern for names starting with {@code namePrefix}: lock keys ({@code
     * <prefix>{<name>}:lock}) and semaphore holders keys ({@code <prefix>sem:{<name>}:holders}), and
     * no other key of a name (fencing counters, which outlive their locks by a day, are most of them).
     */
    static String pattern(RedisKeys keys, String namePrefix) {
        return glob(keys.prefix()) + "*{" + glob(RedisKeys.encode(scannable(namePrefix))) + "*}:[hl]o[cl]*";
    }

    /**
     * {@code prefix} up to its first unpaired surrogate, which has no UTF-8 form to match (names,
     * being valid, never hold one, so nothing is missed; the names found are filtered again).
     */
    static String scannable(String prefix) {
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < prefix.length()
                    && Character.isLowSurrogate(prefix.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return prefix.substring(0, i);
            }
        }
        return prefix;
    }

    /** {@code literal} as a glob pattern that matches exactly it: {@code * ? [ ] \} escaped. */
    static String glob(String literal) {
        StringBuilder out = new StringBuilder(literal.length() + 8);
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    /**
     * Every lock and, if {@code semaphores}, every semaphore held on {@code node} whose name starts
     * with {@code prefix}, sorted by {@link #ORDER}.
     *
     * @param waiting the key suffix of the sorted set that counts a lock's waiters ({@link
     *     RedisKeys#inspectKeys}), or null when this backend does not count them
     */
    static List<LockInfo> list(
            RedisNode node,
            RedisKeys keys,
            String prefix,
            String waiting,
            boolean semaphores,
            long timeoutNanos,
            String backend) {
        ScanArgs args = ScanArgs.Builder.matches(pattern(keys, prefix)).limit(COUNT);
        Set<String> locks = new HashSet<>();
        Set<String> permits = new HashSet<>();
        List<LockInfo> found = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        String subject = "'" + prefix + "'*";
        do {
            KeyScanCursor<String> step =
                    RedisFailures.await(node.scan(cursor, args), timeoutNanos, subject, backend, "list (SCAN)");
            List<CompletableFuture<Optional<LockInfo>>> reads = new ArrayList<>();
            for (String key : step.getKeys()) {
                String name = keys.lockName(key);
                if (name != null && name.startsWith(prefix) && locks.add(name)) {
                    reads.add(RedisInspection.lock(node, keys, name, waiting));
                    continue;
                }
                name = semaphores ? RedisPermits.semaphoreName(keys, key) : null;
                if (name != null && name.startsWith(prefix) && permits.add(name)) {
                    reads.add(RedisInspection.permits(node, keys, name));
                }
            }
            if (!reads.isEmpty()) {
                RedisFailures.await(
                        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)),
                        timeoutNanos,
                        subject,
                        backend,
                        "list (inspect)");
                for (CompletableFuture<Optional<LockInfo>> read : reads) {
                    read.join().ifPresent(found::add);
                }
            }
            cursor = step;
        } while (!cursor.isFinished());
        found.sort(ORDER);
        return found;
    }
}
