package dev.baton.quarkus.runtime;

import dev.baton.Lease;
import dev.baton.LockClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * The readiness check {@value #NAME}, added when the application has quarkus-smallrye-health: one
 * round trip to the backend, a {@code tryAcquire} and release of the reserved lock {@value
 * #LOCK_NAME}, the same check as the Spring starters' health indicator. UP with the backend and the
 * latency in milliseconds; DOWN with the backend's error otherwise, after at most about the client's
 * operation timeout. Finding the lock held by another instance's check is a working round trip too.
 */
@Readiness
@ApplicationScoped
class BatonHealthCheck implements HealthCheck {

    /** The check's name in {@code /q/health}. */
    static final String NAME = "baton";

    /** The lock name the check takes; applications should not use it. */
    static final String LOCK_NAME = "baton-health-check";

    @Inject
    LockClient client;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME).withData("backend", client.backendName());
        try {
            long started = System.nanoTime();
            Optional<Lease> lease = client.lock(LOCK_NAME).tryAcquire();
            lease.ifPresent(Lease::close);
            long micros = (System.nanoTime() - started) / 1_000;
            return response.withData("latencyMillis", String.valueOf(micros / 1000.0))
                    .up()
                    .build();
        } catch (RuntimeException e) {
            return response.withData("error", String.valueOf(e.getMessage()))
                    .down()
                    .build();
        }
    }
}
