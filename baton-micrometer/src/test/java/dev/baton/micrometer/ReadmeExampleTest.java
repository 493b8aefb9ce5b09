package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The examples of docs/frameworks/micrometer.md, run as the page shows them (on in-process H2). */
class ReadmeExampleTest {

    @Test
    void theExampleRecordsTheLockItTook() {
        // snippet:start meters
        MeterRegistry registry = new SimpleMeterRegistry(); // or Prometheus, OTLP, JMX...
        BatonMeters meters = BatonMeters.builder(registry)
                .nameTag(name -> name.replaceAll("-\\d+$", "")) // optional: invoice-42 -> lock=invoice
                .build();
        LockOptions options = LockOptions.builder().listener(meters).build();
        try (LockClient client = Baton.connect("jdbc:h2:mem:app;DB_CLOSE_DELAY=-1", options)) {
            try (Lease lease = client.lock("invoice-42").acquire(Duration.ofSeconds(5))) {
                // baton.lock.wait{outcome=acquired}, baton.lock.leases.held = 1 while here
            }
        }
        // snippet:end meters
        assertThat(registry.get("baton.lock.wait")
                        .tag("lock", "invoice")
                        .tag("outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("baton.lock.held")
                        .tag("lock", "invoice")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void theObservationExampleTracesTheAcquireAndTheHold() {
        SimpleTracer tracer = new SimpleTracer();
        // snippet:start observations
        ObservationRegistry registry = ObservationRegistry.create(); // Spring Boot gives you its own
        registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
        BatonObservations observations = BatonObservations.builder(registry).build();
        LockOptions options = LockOptions.builder().listener(observations).build();
        try (LockClient client = Baton.connect("jdbc:h2:mem:app;DB_CLOSE_DELAY=-1", options)) {
            try (Lease lease = client.lock("invoice-42").acquire(Duration.ofSeconds(5))) {
                // spans: baton.lock.acquire (ended), baton.lock.hold (open until close)
            }
        }
        // snippet:end observations
        assertThat(tracer.getSpans())
                .extracting(SimpleSpan::getName)
                .containsExactly("baton.lock.acquire", "baton.lock.hold");
    }
}
