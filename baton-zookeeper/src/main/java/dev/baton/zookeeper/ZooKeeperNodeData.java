package dev.baton.zookeeper;

import java.nio.charset.StandardCharsets;

/**
 * What a queue node's data says, and how Baton writes it: the owner id (32 hex characters), and,
 * when the holder described itself ({@link dev.baton.spi.LockRequest#holder()}), a line feed and
 * that description, all in UTF-8 (at most 32 + 1 + 4 &times; 120 bytes, far below ZooKeeper's
 * 1 MB limit on node data). Written in the create that joins the queue, so describing the holder
 * costs no request of its own.
 *
 * <p>Reading never fails: a node written by an older Baton holds the owner id alone (no
 * description); a node of Curator's own recipes holds whatever its client wrote (by default the
 * client's IP address), which is not an owner id (no description either). The owner id of a node
 * is taken from its name where it can be: Curator's protection prefix {@code _c_<uuid>-}, which
 * Baton derives from the owner id ({@link ZooKeeperLockQueue#protectionPrefix}) and Curator's
 * recipes write for every lock and lease node, spells it; so Curator's nodes have an owner id too.
 */
final class ZooKeeperNodeData {
    private static final char SEPARATOR = '\n';
    private static final int OWNER_LENGTH = 32;
    private static final String PROTECTION = "_c_";
    private static final int UUID_LENGTH = 36;

    private ZooKeeperNodeData() {}

    /** The data of a new queue node: the owner id, then the holder description if there is one. */
    static byte[] encode(String ownerId, String holder) {
        String text = holder.isEmpty() ? ownerId : ownerId + SEPARATOR + holder;
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The holder description in a node's data; empty when it has none or the data is not Baton's. */
    static String description(byte[] data) {
        if (data == null || data.length <= OWNER_LENGTH || data[OWNER_LENGTH] != SEPARATOR || !isOwnerId(data)) {
            return "";
        }
        return new String(data, OWNER_LENGTH + 1, data.length - OWNER_LENGTH - 1, StandardCharsets.UTF_8);
    }

    /**
     * The owner id of a queue node: the UUID of its protection prefix without dashes when it has one,
     * else the owner id its data starts with, else its name.
     */
    static String ownerOf(String node, byte[] data) {
        if (node.startsWith(PROTECTION)
                && node.length() > PROTECTION.length() + UUID_LENGTH
                && node.charAt(PROTECTION.length() + UUID_LENGTH) == '-') {
            String uuid = node.substring(PROTECTION.length(), PROTECTION.length() + UUID_LENGTH);
            String hex = uuid.replace("-", "").toLowerCase(java.util.Locale.ROOT);
            if (hex.length() == OWNER_LENGTH && hex.chars().allMatch(ZooKeeperNodeData::isHex)) {
                return hex;
            }
        }
        if (data != null
                && data.length >= OWNER_LENGTH
                && isOwnerId(data)
                && (data.length == OWNER_LENGTH || data[OWNER_LENGTH] == SEPARATOR)) {
            return new String(data, 0, OWNER_LENGTH, StandardCharsets.US_ASCII);
        }
        return node;
    }

    private static boolean isOwnerId(byte[] data) {
        for (int i = 0; i < OWNER_LENGTH; i++) {
            if (!isHex(data[i])) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
