package dev.baton.spi;

import java.time.Instant;
import java.util.List;

/**
 * What a backend reports about a held lock.
 *
 * @param name the lock name
 * @param mode the mode it is held in
 * @param owners owner ids of the current holders (one for exclusive, one or more for shared)
 * @param fencingToken the current grant's token
 * @param expiresAt the backend's expiry of the grant
 */
public record LockInfo(String name, LockMode mode, List<String> owners, long fencingToken, Instant expiresAt) {
    /**
     * Copies {@code owners}, so that the record stays immutable.
     *
     * @param name the lock name
     * @param mode the mode it is held in
     * @param owners owner ids of the current holders; copied
     * @param fencingToken the current grant's token
     * @param expiresAt the backend's expiry of the grant
     * @throws NullPointerException if {@code owners} is null or contains null
     */
    public LockInfo {
        owners = List.copyOf(owners);
    }
}
