package dev.baton.redis;

/**
 * Key names of one lock. All of a lock's keys carry the same hash tag, {@code {<encoded name>}}, so
 * that they live in one hash slot (Redis Cluster) and one Lua script may touch them all.
 *
 * <p>The name is encoded so that user text can never end the hash tag early or make two names
 * collide: {@code %}, <code>{</code> and <code>}</code> become {@code %25}, {@code %7B} and {@code
 * %7D}; every other character is kept. The encoding is injective, and the encoded name contains no
 * brace, so the first <code>}</code> after the first <code>{</code> is always the tag's end.
 */
final class RedisKeys {
    static final String DEFAULT_PREFIX = "baton:";

    private final String prefix;

    RedisKeys(String prefix) {
        this.prefix = prefix;
    }

    String prefix() {
        return prefix;
    }

    /**
     * Every key of a lock: lock, fencing counter, readers sorted set, queue of waiters for a
     * hand-over (tests and tools).
     */
    String[] keys(String name) {
        String base = base(name);
        return new String[] {base + "lock", base + "fence", base + "readers", base + "queue"};
    }

    /**
     * KEYS for a script run in {@code mode}: lock, fencing counter, then the queue (exclusive) or the
     * readers and their descriptions (shared). Fewer keys per call is less to encode and send on the
     * fast path; an exclusive grant keeps its description in the lock's value.
     */
    String[] keys(String name, dev.baton.LockMode mode) {
        String base = base(name);
        if (mode == dev.baton.LockMode.EXCLUSIVE) {
            return new String[] {base + "lock", base + "fence", base + "queue"};
        }
        return new String[] {base + "lock", base + "fence", base + "readers", base + "descriptions"};
    }

    /**
     * The hash of the readers' descriptions: owner id to {@code "<token> <holder description>"}
     * ({@link RedisScripts#ACQUIRE}).
     */
    String descriptions(String name) {
        return base(name) + "descriptions";
    }

    /**
     * KEYS for {@link RedisInspection#LOCK}: lock, fencing counter, readers, their descriptions, then
     * the sorted set of waiters scored by when their entry expires (the hand-over queue, or Redlock's
     * ticket expiries), or none when waiters are not counted.
     */
    String[] inspectKeys(String name, String waiting) {
        String base = base(name);
        String[] keys = {base + "lock", base + "fence", base + "readers", base + "descriptions"};
        if (waiting == null) {
            return keys;
        }
        return new String[] {keys[0], keys[1], keys[2], keys[3], base + waiting};
    }

    /** The name whose lock key is {@code key}, or null if {@code key} is not a lock key of this prefix. */
    String lockName(String key) {
        return nameIn(key, prefix + "{", "}:lock");
    }

    /**
     * The name between {@code before} and {@code after} in {@code key}, decoded; null if {@code key}
     * has another shape.
     */
    static String nameIn(String key, String before, String after) {
        if (!key.startsWith(before) || !key.endsWith(after) || key.length() < before.length() + after.length()) {
            return null;
        }
        String encoded = key.substring(before.length(), key.length() - after.length());
        if (encoded.indexOf('{') >= 0 || encoded.indexOf('}') >= 0) {
            return null;
        }
        return decode(encoded);
    }

    /**
     * KEYS for Redlock's fair exclusive scripts: lock, fencing counter, the waiters' tickets and
     * their entries' expiries ({@link RedlockTickets}).
     */
    String[] redlockKeys(String name) {
        String base = base(name);
        return new String[] {base + "lock", base + "fence", base + "tickets", base + "ticket-expiry"};
    }

    /** The two ticket keys of {@link #redlockKeys}, for leaving. */
    String[] ticketKeys(String name) {
        String base = base(name);
        return new String[] {base + "tickets", base + "ticket-expiry"};
    }

    private String base(String name) {
        return prefix + "{" + encode(name) + "}:";
    }

    /** The channel a release is published on. */
    String channel(String name) {
        return prefix + "{" + encode(name) + "}:released";
    }

    /** The inverse of {@link #encode}; null for text {@link #encode} never produces. */
    static String decode(String encoded) {
        if (encoded.indexOf('%') < 0) {
            return encoded;
        }
        StringBuilder out = new StringBuilder(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            String escape = encoded.length() >= i + 3 ? encoded.substring(i, i + 3) : "";
            switch (escape) {
                case "%25" -> out.append('%');
                case "%7B" -> out.append('{');
                case "%7D" -> out.append('}');
                default -> {
                    return null;
                }
            }
            i += 2;
        }
        return out.toString();
    }

    static String encode(String name) {
        StringBuilder out = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            String escaped =
                    switch (c) {
                        case '%' -> "%25";
                        case '{' -> "%7B";
                        case '}' -> "%7D";
                        default -> null;
                    };
            if (escaped != null && out == null) {
                out = new StringBuilder(name.length() + 8).append(name, 0, i);
            }
            if (out != null) {
                if (escaped != null) {
                    out.append(escaped);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? name : out.toString();
    }
}
