package dev.baton.spring;

import dev.baton.Lease;
import dev.baton.LockClient;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP when one round trip to the backend works: a {@code tryAcquire} and release of the reserved lock
 * {@value #LOCK_NAME} (held by another instance's check counts as a working round trip too), with
 * its latency in milliseconds. DOWN with the backend's error otherwise; a check takes at most about
 * the client's operation timeout.
 */
final class BatonHealthIndicator extends AbstractHealthIndicator {

    /** The lock name the check takes; applications should not use it. */
    static final String LOCK_NAME = "baton-health-check";

    private final LockClient client;

    BatonHealthIndicator(LockClient client) {
        super("Baton lock backend health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", client.backendName());
        long started = System.nanoTime();
        Optional<Lease> lease = client.lock(LOCK_NAME).tryAcquire();
        lease.ifPresent(Lease::close);
        long micros = (System.nanoTime() - started) / 1_000;
        builder.up().withDetail("latencyMillis", micros / 1000.0);
    }
}
