package dev.baton.spi;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import java.util.Set;

/**
 * Builds backends from URIs. Implementations are discovered with {@link java.util.ServiceLoader}
 * (listed in {@code META-INF/services/dev.baton.spi.LockBackendProvider}).
 */
public interface LockBackendProvider {

    /**
     * The URI schemes this provider accepts, compared case-insensitively with the part of the URI
     * before {@code ://} or, for JDBC URLs, with {@code jdbc:<subprotocol>} (for example {@code
     * jdbc:postgresql}).
     *
     * @return the accepted schemes, lower case; never empty
     */
    Set<String> schemes();

    /**
     * Creates a backend for the URI. Must not block for longer than the operation timeout; it may
     * connect lazily.
     *
     * @param uri the URI given to {@link dev.baton.Baton#connect(String, LockOptions)}; its scheme is
     *     one of {@link #schemes()}
     * @param options the client's options; backends take their operation timeout from them
     * @return a new backend owned by the caller
     *
     * @throws LockConfigurationException if the URI is malformed or names an unsupported option
     */
    LockBackend create(String uri, LockOptions options);
}
