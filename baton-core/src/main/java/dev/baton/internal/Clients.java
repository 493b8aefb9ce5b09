package dev.baton.internal;

import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;

/**
 * The one public door into the core's machinery, for {@link dev.baton.Baton#open} in the same
 * module: every other type of this package is package-private, and the module descriptor does not
 * export the package. Applications call {@link dev.baton.Baton} instead.
 */
public final class Clients {
    private Clients() {}

    /**
     * A client around a backend, on the system clock.
     *
     * @param backend the backend the client's locks live in; the client owns and closes it
     * @param options lease time, renewal, timeouts and listeners for every lock of the client
     * @return a new client
     */
    public static LockClient open(LockBackend backend, LockOptions options) {
        return new ClientCore(backend, options);
    }

    /**
     * An operator's view of a backend.
     *
     * @param backend the backend to look at; the admin owns and closes it
     * @param options the options the backend was made with (its client name is logged with forced
     *     releases)
     * @return a new admin
     */
    public static LockAdmin admin(LockBackend backend, LockOptions options) {
        return new BackendAdmin(backend, options);
    }
}
