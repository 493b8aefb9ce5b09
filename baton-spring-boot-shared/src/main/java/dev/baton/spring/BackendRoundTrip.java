package dev.baton.spring;

import dev.baton.Lease;
import dev.baton.LockClient;
import java.util.Optional;

/**
 * The check behind the {@code baton} health indicator of both Boot lines (whose health types live in
 * different packages): one round trip to the backend, a {@code tryAcquire} and release of the
 * reserved lock {@value #LOCK_NAME}. Finding it held by another instance's check is a working round
 * trip too.
 */
final class BackendRoundTrip {

    /** The lock name the check takes; applications should not use it. */
    static final String LOCK_NAME = "baton-health-check";

    private BackendRoundTrip() {}

    /**
     * Takes one round trip; the backend's exception (unreachable, refused) propagates, after at most
     * about the client's operation timeout.
     *
     * @return how long the round trip took, in milliseconds
     */
    static double latencyMillis(LockClient client) {
        long started = System.nanoTime();
        Optional<Lease> lease = client.lock(LOCK_NAME).tryAcquire();
        lease.ifPresent(Lease::close);
        long micros = (System.nanoTime() - started) / 1_000;
        return micros / 1000.0;
    }
}
