package dev.baton.quarkus.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.locked.LockedContext;
import dev.baton.locked.LockedTimeoutException;
import dev.baton.tck.KitTime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application on H2 (one boot for the class) with SmallRye Health and Micrometer present:
 * the injected client, {@code @Locked} methods, the readiness check and the meters.
 */
class LockedOnH2Test {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(
                    jar -> jar.addClasses(Invoices.class, Invoices.Order.class, Billing.class, Registry.class))
            .overrideConfigKey("baton.uri", "jdbc:h2:mem:quarkus-locked")
            .overrideConfigKey("baton.lease-time", "5s")
            .overrideConfigKey("baton.client-name", "billing")
            .overrideConfigKey("baton.fair", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.micrometer.binder-enabled-default", "false");

    /** A registry that keeps what it is given, for the test to read the meters from. */
    @Singleton
    public static class Registry {
        @Produces
        @Singleton
        SimpleMeterRegistry simple() {
            return new SimpleMeterRegistry();
        }
    }

    @Inject
    Invoices invoices;

    @Inject
    LockClient client;

    @Inject
    Billing billing;

    @Inject
    SimpleMeterRegistry meters;

    @ConfigProperty(name = "baton.uri")
    String uri;

    @TestHTTPResource("/q/health/ready")
    URI readiness;

    // One test instance serves every test of a QuarkusUnitTest class: a pool per test.
    private ExecutorService threads;

    @BeforeEach
    void startThreads() {
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void callsWithTheSameResolvedNameRunOneAtATime() throws Exception {
        CountDownLatch firstIn = new CountDownLatch(1);
        CountDownLatch firstOut = new CountDownLatch(1);
        Future<Long> first = threads.submit(() -> invoices.bill(1, firstIn, firstOut));
        assertThat(firstIn.await(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        assertThat(client.lock("invoice-1").tryAcquire())
                .as("the resolved name is held by the running call")
                .isEmpty();

        int runsBefore = invoices.quickRuns();
        assertThatThrownBy(() -> invoices.quick(1))
                .isInstanceOf(LockedTimeoutException.class)
                .hasMessageContaining("@Locked Invoices.quick(long) did not run")
                .hasMessageContaining("invoice-1")
                .hasMessageContaining("waitTime")
                .satisfies(
                        e -> assertThat(((LockedTimeoutException) e).lockName()).isEqualTo("invoice-1"));
        assertThat(invoices.quickRuns()).as("the method did not run").isEqualTo(runsBefore);
        assertThat(invoices.quick(2)).as("another name runs at once").isPositive();

        CountDownLatch secondIn = new CountDownLatch(1);
        CountDownLatch secondOut = new CountDownLatch(1);
        Future<Long> second = threads.submit(() -> invoices.bill(1, secondIn, secondOut));
        firstOut.countDown();
        long firstToken = first.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(secondIn.await(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        secondOut.countDown();
        assertThat(second.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                .isGreaterThan(firstToken);
        assertThat(invoices.mostInside("invoice-1")).isEqualTo(1);
    }

    @Test
    void theNameTemplateReadsPropertiesOfTheArgumentsAndTheLeaseTimeIsTheAnnotations() {
        Lease lease = invoices.order(new Invoices.Order("eu", 7));
        assertThat(lease.name()).isEqualTo("order-eu-7");
        assertThat(lease.isValid()).as("released when the method returned").isFalse();
    }

    @Test
    void aNestedCallWithTheSameNameSharesTheGrant() {
        long[] tokens = invoices.outer(invoices);
        assertThat(tokens[1]).isEqualTo(tokens[0]);
    }

    @Test
    void theLockIsReleasedWhenTheMethodThrowsAndTheContextIsEmptyOutside() {
        assertThatThrownBy(invoices::fail).hasMessage("the method's own failure");
        Optional<Lease> free = client.lock("fails").tryAcquire();
        assertThat(free).as("released after the failure").isPresent();
        free.get().close();
        assertThatThrownBy(LockedContext::currentLease)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no @Locked method is running");
    }

    @Test
    void theDocsExampleLocksInTheAnnotationAndInCode() {
        long first = billing.bill(42);
        assertThat(billing.bill(42)).as("a new holder, a higher token").isGreaterThan(first);
        assertThat(billing.rebuildIndex()).isPositive();
        assertThat(client.lock("invoice-42").tryAcquire())
                .as("released after the call")
                .isPresent();
    }

    @Test
    void aCallThatSkipsIfLockedReturnsNothingWhileAnotherClientHoldsTheLock() {
        try (LockClient other = Baton.connect(uri)) {
            int runsBefore = invoices.jobRuns();
            try (Lease held = other.lock("job-1").acquire(KitTime.grant());
                    Lease report = other.lock("report-1").acquire(KitTime.grant())) {
                invoices.job(1);
                assertThat(invoices.jobRuns())
                        .as("skipped: the method did not run")
                        .isEqualTo(runsBefore);
                assertThat(invoices.report(1))
                        .as("a skipped Optional method returns empty")
                        .isEmpty();
            }
            invoices.job(1);
            assertThat(invoices.jobRuns()).as("runs once the lock is free").isEqualTo(runsBefore + 1);
            assertThat(invoices.report(1)).isPresent();
        }
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterTheCallReturns() {
        assertThat(invoices.daily()).as("the first call runs").isPresent();
        try (LockClient other = Baton.connect(uri)) {
            assertThat(other.lock("daily").tryAcquire())
                    .as("kept for lockAtLeastFor after the method returned")
                    .isEmpty();
        }
        assertThat(invoices.daily())
                .as("a second call on the same thread finds it kept and skips")
                .isEmpty();
    }

    @Test
    void theClientIsBuiltFromTheProperties() {
        assertThat(client.options().clientName()).isEqualTo("billing");
        assertThat(client.options().fair()).isFalse();
        assertThat(client.options().leaseTime()).hasSeconds(5);
        assertThat(client.backendName()).containsIgnoringCase("H2");
    }

    @Test
    void theReadinessCheckTakesTheReservedLock() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(readiness).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body().replaceAll("\\s", ""))
                .contains("\"name\":\"baton\"")
                .contains("\"status\":\"UP\"")
                .contains("latencyMillis")
                .containsIgnoringCase("H2");
    }

    @Test
    void theMetersCountTheLockedCalls() {
        invoices.quick(42);
        MeterRegistry registry = meters;
        assertThat(registry.find("baton.lock.wait").tag("outcome", "acquired").timer())
                .as("the wait timer of acquired locks")
                .isNotNull()
                .satisfies(timer -> assertThat(timer.count()).isPositive());
        assertThat(registry.find("baton.lock.held").timer()).isNotNull();
    }
}
