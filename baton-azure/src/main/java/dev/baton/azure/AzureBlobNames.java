package dev.baton.azure;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Lock names to blob names: {@code <prefix><base64url of the name's UTF-8 bytes, no padding>}, for
 * example {@code baton/aW52b2ljZS00Mg} for {@code invoice-42}.
 *
 * <p>Why this encoding: it is injective (two names never share a blob: base64url is reversible and
 * blob names are case-sensitive), it uses only {@code A-Z a-z 0-9 - _}, so a name can neither add a
 * path segment ({@code /}), nor form {@code .} or {@code ..}, nor need URL escaping; and Baton's
 * longest name (512 UTF-8 bytes) becomes 683 characters, within Azure's 1,024 with the prefix. The
 * lock name is read back with {@link #lockName(String, String)}.
 */
final class AzureBlobNames {
    static final String DEFAULT_PREFIX = "baton/";
    static final int MAX_PREFIX = 200;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_\\-/.]*");

    private AzureBlobNames() {}

    /** The blob that carries the lease and the fencing counter of lock {@code name}. */
    static String blobName(String prefix, String name) {
        return prefix + ENCODER.encodeToString(name.getBytes(StandardCharsets.UTF_8));
    }

    /** The lock name a blob of {@link #blobName} stands for. */
    static String lockName(String prefix, String blobName) {
        if (!blobName.startsWith(prefix)) {
            throw new IllegalArgumentException(blobName + " does not start with " + prefix);
        }
        return new String(Base64.getUrlDecoder().decode(blobName.substring(prefix.length())), StandardCharsets.UTF_8);
    }

    /**
     * The blob-name prefix under which every lock whose name starts with {@code lockPrefix} lies:
     * the encoding of the prefix's whole 3-byte groups (base64 turns each into 4 characters; a
     * trailing partial group depends on the bytes after it, so the listing matches on decoded names).
     */
    static String listPrefix(String prefix, String lockPrefix) {
        byte[] bytes = lockPrefix.getBytes(StandardCharsets.UTF_8);
        byte[] whole = Arrays.copyOf(bytes, bytes.length - bytes.length % 3);
        return prefix + ENCODER.encodeToString(whole);
    }

    /**
     * The lock name a blob found under {@code prefix} stands for, or null if the blob is not one of
     * {@link #blobName}'s (another prefix's blob, a foreign blob, a non-canonical encoding).
     */
    static String lockNameOrNull(String prefix, String blobName) {
        if (!blobName.startsWith(prefix)) {
            return null;
        }
        String encoded = blobName.substring(prefix.length());
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(encoded);
        } catch (IllegalArgumentException e) {
            return null;
        }
        String name = new String(bytes, StandardCharsets.UTF_8);
        return !name.isEmpty() && blobName(prefix, name).equals(blobName) ? name : null;
    }

    /** The prefix if it is safe: letters, digits, {@code - _ . /}, no empty, {@code .} or {@code ..} segment. */
    static String checkPrefix(String uri, String prefix) {
        if (prefix.length() > MAX_PREFIX || !PREFIX.matcher(prefix).matches()) {
            throw AzureBlobUri.invalid(
                    uri,
                    "prefix '" + prefix + "' must be at most " + MAX_PREFIX
                            + " letters, digits and - _ . /, such as baton/ or locks/app-1/");
        }
        String[] segments = prefix.split("/", -1);
        for (int i = 0; i < segments.length - 1; i++) {
            String segment = segments[i];
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw AzureBlobUri.invalid(
                        uri,
                        "prefix '" + prefix + "' has an empty, '.' or '..' path segment;"
                                + " use plain segments such as baton/ or locks/app-1/");
            }
        }
        String last = segments[segments.length - 1];
        if (last.equals(".") || last.equals("..")) {
            throw AzureBlobUri.invalid(uri, "prefix '" + prefix + "' ends in a '.' or '..' segment");
        }
        return prefix;
    }
}
