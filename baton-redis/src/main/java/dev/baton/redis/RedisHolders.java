package dev.baton.redis;

/**
 * How holder descriptions ({@link dev.baton.spi.LockRequest#holder()}) are written to Redis, beside
 * the owner id in the place each grant already writes (no command more per acquire):
 *
 * <ul>
 *   <li>an exclusive lock: in the lock's value, {@code "<description> <owner id>"} (then the wanted
 *       mark {@code +}); the owner id is the value's last word, so the scripts find it whatever the
 *       description holds, and a value written without one (an older client) is the owner id alone;
 *   <li>a shared hold or a semaphore permit: {@code "<token> <description>"} under the owner id in the
 *       name's {@code descriptions} hash, beside the readers or holders sorted set;
 *   <li>a hand-over queue entry: after the channel, on a line of its own, so that the release that
 *       hands the lock over writes the waiter's description into the value.
 * </ul>
 *
 * <p>Descriptions are at most {@link dev.baton.spi.LockRequest#HOLDER_MAX_LENGTH} characters (the
 * core cuts them); control characters are replaced by {@code ?} here as well, so that a line break
 * never reaches a queue entry.
 */
final class RedisHolders {
    private RedisHolders() {}

    /** {@code holder} without control characters. */
    static String clean(String holder) {
        char[] chars = null;
        for (int i = 0; i < holder.length(); i++) {
            if (Character.isISOControl(holder.charAt(i))) {
                if (chars == null) {
                    chars = holder.toCharArray();
                }
                chars[i] = '?';
            }
        }
        return chars == null ? holder : new String(chars);
    }

    /** A hand-over queue entry: {@code "<owner> <lease ms> <channel>[\n<holder>]"}. */
    static String queueMember(String ownerId, long leaseMillis, String channel, String holder) {
        String member = ownerId + " " + leaseMillis + " " + channel;
        return holder.isEmpty() ? member : member + "\n" + clean(holder);
    }
}
