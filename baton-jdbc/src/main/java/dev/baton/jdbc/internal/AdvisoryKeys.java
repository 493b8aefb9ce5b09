package dev.baton.jdbc.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * How lock names become the keys of the databases' own named locks (the advisory strategy):
 * PostgreSQL's 64-bit advisory keys and MariaDB's server-side lock names, both from SHA-256.
 */
public final class AdvisoryKeys {
    private static final int MAX_NAME_CHARS = 64;
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z0-9._:/-]{1," + MAX_NAME_CHARS + "}");
    public static final String HASHED_PREFIX = "baton#";

    /** One digest per thread: looking one up costs more than the hash itself on a hot acquire path. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(AdvisoryKeys::newSha256);

    private AdvisoryKeys() {}

    /** PostgreSQL's key: a collision never breaks mutual exclusion, it only makes two names exclude each other. */
    public static long key(TableNames names, String lockName) {
        return ByteBuffer.wrap(sha256(names.locks() + ":" + lockName), 0, 8).getLong();
    }

    /** MariaDB's lock name in {@code namespace} ({@code <database>.<table>}): the plain name when it fits. */
    public static String serverName(String namespace, String lockName) {
        String full = namespace + ":" + lockName;
        if (PLAIN_NAME.matcher(full).matches()) {
            return full;
        }
        String hash = HexFormat.of().formatHex(sha256(full));
        return HASHED_PREFIX + hash.substring(0, MAX_NAME_CHARS - HASHED_PREFIX.length());
    }

    private static byte[] sha256(String text) {
        MessageDigest sha = SHA256.get();
        sha.reset();
        return sha.digest(text.getBytes(StandardCharsets.UTF_8));
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
