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

    private String prefixText(String name) {
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
                };
        return ByteSequence.from(kindText + " " + ownerId, StandardCharsets.UTF_8);
    }

    static boolean isRead(ByteSequence value) {
        return value.startsWith(READ_PREFIX);
    }
}
