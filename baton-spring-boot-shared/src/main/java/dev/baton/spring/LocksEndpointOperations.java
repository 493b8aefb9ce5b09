package dev.baton.spring;

import dev.baton.Holder;
import dev.baton.LockAdmin;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@code locks} Actuator endpoint does, apart from the annotations each Boot line's {@link
 * BatonLocksEndpoint} carries: the listing of {@code baton locks --json} as a map, and the forced
 * release of one holder.
 *
 * <p>A release names the owner id the operator read in the listing, so it breaks that grant only:
 * if the lock changed hands meanwhile, nothing is released and the answer says so. Every forced
 * release is logged at WARN with the holders it broke.
 */
final class LocksEndpointOperations {
    private static final Logger log = LoggerFactory.getLogger(BatonLocksEndpoint.class);

    private final LockAdmin admin;
    private final BatonActuatorProperties properties;

    LocksEndpointOperations(LockAdmin admin, BatonActuatorProperties properties) {
        this.admin = admin;
        this.properties = properties;
    }

    /** The locks held under {@code prefix} (all for null), in the shape {@code baton locks --json} prints. */
    Map<String, Object> locks(String prefix) {
        List<LockInfo> locks = admin.locks(prefix == null ? "" : prefix);
        Map<String, Object> listing = new LinkedHashMap<>();
        listing.put("backend", admin.backendName());
        listing.put("listing", admin.listingMethod());
        listing.put("locks", locks.stream().map(LocksEndpointOperations::lock).toList());
        return listing;
    }

    /** An answer to a release: its HTTP status and its body. */
    record Answer(int status, Map<String, Object> body) {}

    /**
     * Breaks {@code owner}'s grant of {@code name} when releases are enabled.
     *
     * @return 403 when {@code baton.actuator.release-enabled} is false, 400 for a missing owner or a
     *     bad name, 404 when {@code owner} holds nothing of {@code name} (any more), 200 with what was
     *     broken otherwise
     */
    Answer release(String name, String owner) {
        if (!properties.isReleaseEnabled()) {
            return answer(
                    403,
                    "Baton: forced release over the locks endpoint is off; set baton.actuator.release-enabled=true"
                            + " (and management.endpoint.locks.access=unrestricted) to allow it, or use"
                            + " `baton release --force`");
        }
        if (owner == null || owner.isBlank()) {
            return answer(
                    400,
                    "Baton: a forced release of " + name + " on " + admin.backendName() + " needs the owner id of the"
                            + " holder to break, as GET /actuator/locks lists it, so that a lock that changed hands"
                            + " is never broken by mistake");
        }
        List<LockInfo> broken;
        try {
            broken = admin.forceRelease(name, owner);
        } catch (LockConfigurationException e) {
            return answer(400, e.getMessage());
        }
        if (broken.isEmpty()) {
            return answer(
                    404,
                    "Baton: " + name + " on " + admin.backendName() + " has no holder with owner id " + owner
                            + " (released, expired or taken over meanwhile); nothing was broken; list the locks"
                            + " again");
        }
        List<Holder> holders =
                broken.stream().flatMap(info -> info.holders().stream()).toList();
        log.warn(
                "Baton: forced release over the Actuator locks endpoint: broke {} on {}, held by {}; the holder learns"
                        + " of it at its next renewal and the next grant's fencing token is higher",
                name,
                admin.backendName(),
                holders);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("backend", admin.backendName());
        body.put("released", broken.stream().map(LocksEndpointOperations::lock).toList());
        return new Answer(200, body);
    }

    private static Answer answer(int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("message", message);
        return new Answer(status, body);
    }

    private static Map<String, Object> lock(LockInfo info) {
        Map<String, Object> lock = new LinkedHashMap<>();
        lock.put("name", info.name());
        lock.put("kind", kind(info));
        lock.put("permits", info.permits());
        lock.put("waiters", info.waiters().isPresent() ? info.waiters().getAsInt() : null);
        lock.put(
                "holders",
                info.holders().stream().map(LocksEndpointOperations::holder).toList());
        return lock;
    }

    private static Map<String, Object> holder(Holder holder) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("owner", holder.ownerId());
        map.put("description", holder.description());
        map.put("fencingToken", holder.fencingToken());
        map.put("expiresAt", holder.expiresAt().toString());
        return map;
    }

    /** The names {@code baton locks} uses. */
    private static String kind(LockInfo info) {
        return switch (info.kind()) {
            case MUTEX -> "lock";
            case READ -> "read";
            case WRITE -> "write";
            case PERMIT -> "semaphore";
        };
    }
}
