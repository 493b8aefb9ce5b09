package dev.baton.quarkus.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.locked.LockedTimeoutException;
import dev.baton.servers.RedisServer;
import dev.baton.tck.KitTime;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application on a Redis server that the test starts (one boot for the class): {@code
 * @Locked} against a holder on another client, the readiness check, and the client's release of what
 * it holds when the application stops.
 */
class LockedOnRedisTest {

    private static final String HELD_AT_SHUTDOWN = "held-at-shutdown";

    // Set in the class loader JUnit loaded this class with; the application's copy of the class
    // reads the URI from its configuration instead.
    private static RedisServer redis;

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Invoices.class, Invoices.Order.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.micrometer.binder-enabled-default", "false")
            .setBeforeAllCustomizer(() -> {
                redis = RedisServer.start();
                System.setProperty("baton.uri", redis.uri());
            })
            .setAfterAllCustomizer(LockedOnRedisTest::afterShutdown);

    @Inject
    Invoices invoices;

    @Inject
    LockClient client;

    @ConfigProperty(name = "baton.uri")
    String uri;

    @TestHTTPResource("/q/health/ready")
    URI readiness;

    /** After the application stopped: its client released the lease it still held. */
    private static void afterShutdown() {
        try (LockClient other = Baton.connect(redis.uri())) {
            Optional<Lease> lease = other.lock(HELD_AT_SHUTDOWN).tryAcquire();
            assertThat(lease)
                    .as("the application's client released its lease when it closed (its lease time is 30 s)")
                    .isPresent();
            lease.get().close();
        } finally {
            System.clearProperty("baton.uri");
            redis.close();
        }
    }

    @Test
    void aLockedMethodWaitsForAHolderOnAnotherClient() {
        try (LockClient other = Baton.connect(uri)) {
            long othersToken;
            try (Lease held = other.lock("invoice-7").acquire(KitTime.grant())) {
                othersToken = held.fencingToken();
                int runsBefore = invoices.quickRuns();
                assertThatThrownBy(() -> invoices.quick(7))
                        .isInstanceOf(LockedTimeoutException.class)
                        .hasMessageContaining("invoice-7");
                assertThat(invoices.quickRuns()).as("the method did not run").isEqualTo(runsBefore);
            }
            assertThat(invoices.quick(7))
                    .as("the token of the method's lease, after the other holder's")
                    .isGreaterThan(othersToken);
        }
    }

    @Test
    void theClientHoldsUntilTheApplicationStops() {
        Lease lease = client.lock(HELD_AT_SHUTDOWN).acquire(KitTime.grant());
        assertThat(lease.isValid()).isTrue();
        // Not closed: the application's shutdown closes the client, which releases it (afterShutdown).
    }

    @Test
    void theReadinessCheckReachesRedis() throws Exception {
        assertThat(client.backendName()).containsIgnoringCase("redis");
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(readiness).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body().replaceAll("\\s", ""))
                .contains("\"name\":\"baton\"")
                .contains("\"status\":\"UP\"")
                .containsIgnoringCase("redis");
    }
}
