package dev.baton.spring;

import dev.baton.LockClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP when one round trip to the backend works ({@link BackendRoundTrip}: a {@code tryAcquire} and
 * release of the reserved lock {@value BackendRoundTrip#LOCK_NAME}), with its latency in
 * milliseconds. DOWN with the backend's error otherwise; a check takes at most about the client's
 * operation timeout.
 */
final class BatonHealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;

    BatonHealthIndicator(LockClient client) {
        super("Baton lock backend health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", client.backendName());
        builder.up().withDetail("latencyMillis", BackendRoundTrip.latencyMillis(client));
    }
}
