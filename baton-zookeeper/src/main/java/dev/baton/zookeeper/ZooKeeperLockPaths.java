package dev.baton.zookeeper;

import java.nio.charset.StandardCharsets;

/**
 * Maps lock names to ZooKeeper paths: {@code <root>/<encoded name>}. The encoding is one path
 * segment, injective (no two names share a path), and never {@code .} or {@code ..}: ASCII letters,
 * digits, {@code -} and {@code _} stay as they are (so a name like {@code invoice-42} keeps its
 * readable path and Curator users can point their recipes at it), {@code .} stays unless the name
 * is made of dots only, and every other UTF-8 byte becomes {@code %XX}.
 */
final class ZooKeeperLockPaths {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ZooKeeperLockPaths() {}

    static String lockPath(String root, String name) {
        return root + "/" + encode(name);
    }

    static String encode(String name) {
        if (isPlain(name)) {
            return name; // the common case, without a copy
        }
        boolean dotsOnly = !name.isEmpty() && name.chars().allMatch(c -> c == '.');
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int c = b & 0xff;
            boolean plain = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || (c == '.' && !dotsOnly);
            if (plain) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /**
     * The name a path segment encodes, or null if the segment is not one that {@link #encode}
     * writes (another application's node, a semaphore's {@code ~semaphores}, bytes that are not
     * UTF-8): decoding is checked by encoding the result again.
     */
    static String decode(String segment) {
        if (segment.isEmpty()) {
            return null;
        }
        if (segment.indexOf('%') < 0) {
            return isPlain(segment) ? segment : null;
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                if (i + 2 >= segment.length()) {
                    return null;
                }
                int high = Character.digit(segment.charAt(i + 1), 16);
                int low = Character.digit(segment.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return null;
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null;
            }
        }
        String name;
        try {
            name = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
        return encode(name).equals(segment) ? name : null;
    }

    /** Whether {@link #encode} keeps every character: plain ASCII only, and not dots only. */
    private static boolean isPlain(String name) {
        boolean dotsOnly = true;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain =
                    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            if (!plain && c != '.') {
                return false;
            }
            dotsOnly &= c == '.';
        }
        return !dotsOnly || name.isEmpty();
    }
}
