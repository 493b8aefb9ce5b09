package dev.baton.etcd;

import dev.baton.LockKind;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Key names and values of the lock queues. A lock is the prefix {@code <root>/<encoded name>/}, and
 * every attempt to take it is one key {@code <root>/<encoded name>/<client tag>-<slot>} under it
 * (inside the URI's namespace, which the client adds; see {@link EtcdKeySlots}).
 *
 * <p>The name is encoded so that no two names share a prefix and no name's prefix contains
 * another's: {@code %} and {@code /} become {@code %25} and {@code %2F}, every other character stays
 * (etcd keys are bytes, so nothing else needs escaping). Key suffixes never contain {@code /}, so a
 * key belongs to exactly one lock.
 *
 * <p>The value is {@code <kind> <owner id>}: the kind of lock the attempt is for ({@code read} for a
 * read lock, which holds together with other read keys ahead of it; anything else, {@code mutex},
 * {@code write} or a value this version does not know, is exclusive) and the attempt's owner id;
 * then, when the holder described itself ({@link dev.baton.spi.LockRequest#holder()}), a line feed
 * and that description, in UTF-8 (at most 480 bytes, far below etcd's request limit of 1.5 MiB).
 * It goes in the put that joins the queue, so it costs no request of its own. A value without the
 * line feed (written by an older version) has no description; an older version reading a value
 * with one only shows the description as part of the owner id in its diagnostics.
 *
 * <p>Semaphores live apart, under {@code <root>/%sem/}: a semaphore's permits are the prefix {@code
 * <root>/%sem/<encoded name>/} (one key per attempt, named as above, value {@code permit <owner
 * id>}), and its permit count is the key {@code <root>/%sem/<encoded name>} (no trailing slash, so
 * outside that prefix). Why {@code %sem}: an encoded lock name never contains a {@code %} that is
 * not followed by {@code 25} or {@code 2F}, so no lock's prefix is {@code <root>/%sem/} or inside it,
 * and a lock and a semaphore of the same name never meet (with {@code <root>/sem/}, the lock named
 * {@code sem} would have listed every permit key as its own queue).
 */
final class EtcdKeys {
    private static final char SEPARATOR = '\n';
    private static final ByteSequence READ_PREFIX = ByteSequence.from("read ", StandardCharsets.UTF_8);

    private final String root;

    EtcdKeys(String root) {
        this.root = root;
    }

    /** {@code <root>/<encoded name>/}: every key of the lock, and nothing else, starts with it. */
    ByteSequence prefix(String name) {
        return ByteSequence.from(prefixText(name), StandardCharsets.UTF_8);
    }

    /** The key {@code <prefix><suffix>} of one attempt ({@link EtcdKeySlots} picks the suffix). */
    ByteSequence key(String name, String suffix) {
        return ByteSequence.from(prefixText(name) + suffix, StandardCharsets.UTF_8);
    }

    /** {@code <root>/%sem/<encoded name>/}: every permit key of the semaphore, and nothing else. */
    String permitPrefixText(String name) {
        return root + "/%sem/" + encode(name) + "/";
    }

    /** {@code <root>/%sem/<encoded name>}: the key whose value is the semaphore's permit count. */
    String permitCountText(String name) {
        return root + "/%sem/" + encode(name);
    }

    /** The owner id in a key's value ({@code <kind> <owner id>}); the key's last segment if none. */
    static String ownerOf(ByteSequence key, ByteSequence value) {
        String text = value.toString(StandardCharsets.UTF_8);
        int space = text.indexOf(' ');
        if (space >= 0) {
            int end = text.indexOf(SEPARATOR, space + 1);
            return text.substring(space + 1, end < 0 ? text.length() : end);
        }
        String name = key.toString(StandardCharsets.UTF_8);
        return name.substring(name.lastIndexOf('/') + 1);
    }

    /** The holder description in a key's value; empty when it has none. */
    static String descriptionOf(ByteSequence value) {
        String text = value.toString(StandardCharsets.UTF_8);
        int space = text.indexOf(' ');
        int end = space < 0 ? -1 : text.indexOf(SEPARATOR, space + 1);
        return end < 0 ? "" : text.substring(end + 1);
    }

    /** The kind a key's value names: {@code read}, {@code write}, {@code permit}, else a mutex. */
    static LockKind kindOf(ByteSequence value) {
        String text = value.toString(StandardCharsets.UTF_8);
        int space = text.indexOf(' ');
        return switch (space < 0 ? text : text.substring(0, space)) {
            case "read" -> LockKind.READ;
            case "write" -> LockKind.WRITE;
            case "permit" -> LockKind.PERMIT;
            default -> LockKind.MUTEX;
        };
    }

    /** {@code <root>/<encoded prefix>}: every key of every lock whose name starts with {@code prefix}. */
    String lockRangeText(String prefix) {
        return root + "/" + encode(prefix);
    }

    /** {@code <root>/%sem/}: every semaphore's keys, permit counts included. */
    String semaphoresText() {
        return root + "/%sem/";
    }

    /** {@code <root>/}: every key of this backend. */
    String rootText() {
        return root + "/";
    }

    /**
     * The name an encoded segment stands for, or null if {@link #encode} writes no such segment.
     * Encoding is a prefix code ({@code %} always starts {@code %25} or {@code %2F}), so the
     * encoding of a prefix of a name is a prefix of the name's encoding and the other way round.
     */
    static String decode(String encoded) {
        if (encoded.isEmpty() || encoded.indexOf('/') >= 0) {
            return null;
        }
        String name =
                encoded.indexOf('%') < 0 ? encoded : encoded.replace("%2F", "/").replace("%25", "%");
        return encode(name).equals(encoded) ? name : null;
    }

    /** {@link #prefix} as text: an attempt's key is this followed by {@code <client tag>-<slot>}. */
    String prefixText(String name) {
        return root + "/" + encode(name) + "/";
    }

    static String encode(String name) {
        if (name.indexOf('%') < 0 && name.indexOf('/') < 0) {
            return name;
        }
        return name.replace("%", "%25").replace("/", "%2F");
    }

    /** {@code <kind> <owner id>}, and the holder's description on a line of its own if it has one. */
    static ByteSequence value(LockKind kind, String ownerId, String holder) {
        ByteSequence value = value(kind, ownerId);
        return holder.isEmpty() ? value : value.concat(ByteSequence.from(SEPARATOR + holder, StandardCharsets.UTF_8));
    }

    /** {@code <kind> <owner id>}: what the attempt is for, and whose it is. */
    static ByteSequence value(LockKind kind, String ownerId) {
        String kindText =
                switch (kind) {
                    case MUTEX -> "mutex";
                    case READ -> "read";
                    case WRITE -> "write";
                    case PERMIT -> "permit";
                };
        return ByteSequence.from(kindText + " " + ownerId, StandardCharsets.UTF_8);
    }

    static boolean isRead(ByteSequence value) {
        return value.startsWith(READ_PREFIX);
    }
}
