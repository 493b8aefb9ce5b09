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
     * readers (shared). Fewer keys per call is less to encode and send on the fast path.
     */
    String[] keys(String name, dev.baton.spi.LockMode mode) {
        String base = base(name);
        return new String[] {
            base + "lock", base + "fence", base + (mode == dev.baton.spi.LockMode.EXCLUSIVE ? "queue" : "readers")
        };
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
