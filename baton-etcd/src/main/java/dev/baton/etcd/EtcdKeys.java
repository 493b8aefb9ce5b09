package dev.baton.etcd;

import dev.baton.spi.LockKind;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;

/**
 * Key names and values of the lock queues. A lock is the prefix {@code <root>/<encoded name>/}, and
 * every attempt to take it is one key {@code <root>/<encoded name>/<owner id>} under it (inside the
 * URI's namespace, which the client adds).
 *
 * <p>The name is encoded so that no two names share a prefix and no name's prefix contains
 * another's: {@code %} and {@code /} become {@code %25} and {@code %2F}, every other character stays
 * (etcd keys are bytes, so nothing else needs escaping). Owner ids are 32 hex characters and never
 * contain {@code /}, so a key belongs to exactly one lock.
 *
 * <p>The value says what kind of lock the attempt is for: {@code read} for a read lock, which holds
 * together with other read keys ahead of it; anything else ({@code mutex}, {@code write}, or a value
 * this version does not know) is exclusive.
 */
final class EtcdKeys {
    static final ByteSequence READ = value("read");
    private static final ByteSequence MUTEX = value("mutex");
    private static final ByteSequence WRITE = value("write");

    private final String root;

    EtcdKeys(String root) {
        this.root = root;
    }

    /** {@code <root>/<encoded name>/}: every key of the lock, and nothing else, starts with it. */
    ByteSequence prefix(String name) {
        return ByteSequence.from(prefixText(name), StandardCharsets.UTF_8);
    }

    /** The key of one attempt. */
    ByteSequence key(String name, String ownerId) {
        return ByteSequence.from(prefixText(name) + ownerId, StandardCharsets.UTF_8);
    }

    /** The owner id a key of {@code name} ends with. */
    static String ownerOf(ByteSequence key) {
        String text = key.toString(StandardCharsets.UTF_8);
        return text.substring(text.lastIndexOf('/') + 1);
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

    static ByteSequence value(LockKind kind) {
        return switch (kind) {
            case MUTEX -> MUTEX;
            case READ -> READ;
            case WRITE -> WRITE;
        };
    }

    static boolean isRead(ByteSequence value) {
        return READ.equals(value);
    }

    private static ByteSequence value(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
