package dev.baton.etcd;

import dev.baton.spi.LockKind;
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
 * {@code write} or a value this version does not know, is exclusive) and the attempt's owner id.
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
            return text.substring(space + 1);
        }
        String name = key.toString(StandardCharsets.UTF_8);
        return name.substring(name.lastIndexOf('/') + 1);
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
