package dev.baton.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One attempt to take a lock, as the core hands it to a backend.
 *
 * @param name the validated lock name
 * @param ownerId 32 lowercase hex characters, unique to this acquisition (across processes too); the
 *     backend stores it and releases or renews only when it matches
 * @param mode exclusive or shared
 * @param leaseTime how long the grant lives without renewal, measured by the backend's clock
 */
public record LockRequest(String name, String ownerId, LockMode mode, Duration leaseTime) {
    public LockRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(leaseTime, "leaseTime");
    }
}
