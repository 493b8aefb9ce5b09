package dev.baton.spring;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The Actuator endpoint {@code locks}: {@code GET /actuator/locks[?prefix=...]} lists the locks held
 * on the backend as {@code baton locks --json} does, and {@code POST /actuator/locks} with {@code
 * {"name": ..., "owner": ...}} breaks one holder's grant (a forced operator release).
 *
 * <p>The release is refused (403) unless {@code baton.actuator.release-enabled=true}, and Boot maps
 * it only with the endpoint's write access ({@code management.endpoint.locks.access=unrestricted};
 * the endpoint's default access is read-only). It breaks the grant of the owner id given, as the
 * listing shows it, and nothing else: a lock that changed hands meanwhile is left alone (404). Each
 * release is logged at WARN with the holders broken. The holder learns of the loss at its next
 * renewal at the latest, and the next grant's fencing token is higher.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class BatonLocksEndpoint {
    private final LocksEndpointOperations operations;

    BatonLocksEndpoint(LocksEndpointOperations operations) {
        this.operations = operations;
    }

    /**
     * The locks held.
     *
     * @param prefix the start of the names to list; all when absent
     * @return the backend, how it lists, and the locks with their holders
     */
    @ReadOperation
    public Map<String, Object> locks(@Nullable String prefix) {
        return operations.locks(prefix);
    }

    /**
     * Breaks {@code owner}'s grant of {@code name}, when enabled.
     *
     * @param name the lock or semaphore name
     * @param owner the owner id of the holder to break, from the listing
     * @return 200 with what was broken; 403 when not enabled; 404 when that owner holds nothing of
     *     {@code name}; 400 for a bad name or a missing owner
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> release(String name, @Nullable String owner) {
        LocksEndpointOperations.Answer answer = operations.release(name, owner);
        return new WebEndpointResponse<>(answer.body(), answer.status());
    }
}
