package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.tck.KitTime;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application with the actuator and a tracer: Boot's ObservationRegistry reaches the
 * auto-configured client, and a contended acquire made inside a request's observation is recorded
 * as a span under it, beside its hold.
 */
@Timeout(120)
class TracedLocksAppTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        SimpleTracer tracer() {
            return new SimpleTracer();
        }

        @Bean
        DefaultTracingObservationHandler tracingHandler(SimpleTracer tracer) {
            return new DefaultTracingObservationHandler(tracer);
        }

        /** Tells the test when an acquire starts to wait. */
        @Bean
        LockOptionsCustomizer waitSeen(CompletableFuture<Void> waiting) {
            return options -> options.listener(new LockListener() {
                @Override
                public void waitStarted(String lock, String backend) {
                    waiting.complete(null);
                }
            });
        }

        @Bean
        CompletableFuture<Void> waiting() {
            return new CompletableFuture<>();
        }
    }

    @Test
    void aContendedAcquireInARequestIsASpanUnderIt() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "baton.uri=jdbc:h2:mem:traced-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                        "spring.main.banner-mode=off")
                .run()) {
            LockClient client = context.getBean(LockClient.class);
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            SimpleTracer tracer = context.getBean(SimpleTracer.class);
            @SuppressWarnings("unchecked")
            CompletableFuture<Void> waiting = context.getBean("waiting", CompletableFuture.class);

            Lease held = client.lock("invoice-42").acquire(KitTime.grant());
            CompletableFuture<Long> request = CompletableFuture.supplyAsync(
                    () -> Observation.createNotStarted("request", registry).observe(() -> {
                        try (Lease lease = client.lock("invoice-42").acquire(KitTime.bound(KitTime.LEASE))) {
                            return lease.fencingToken();
                        }
                    }));
            waiting.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS);
            held.close();
            long token = request.get(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS);

            List<SimpleSpan> spans = List.copyOf(tracer.getSpans());
            System.out.println("Spans recorded in the application:\n"
                    + spans.stream()
                            .map(span -> span.getName() + " " + span.getTags() + " events=" + span.getEvents())
                            .reduce("", (a, b) -> a + b + "\n"));
            SimpleSpan root = spans.stream()
                    .filter(span -> span.getName().equals("request"))
                    .findFirst()
                    .orElseThrow();
            List<SimpleSpan> children = spans.stream()
                    .filter(span -> root.getSpanId().equals(span.getParentId()))
                    .toList();
            assertThat(children)
                    .extracting(SimpleSpan::getName)
                    .containsExactly("baton.lock.acquire", "baton.lock.hold");
            assertThat(children.get(0).getTags())
                    .containsEntry("baton.outcome", "acquired")
                    .containsEntry("baton.fencing.token", Long.toString(token))
                    .containsEntry("baton.backend", client.backendName());
            assertThat(children.get(0).getEvents())
                    .extracting(event -> event.getValue())
                    .contains("waiting for the lock");
            assertThat(children.get(1).getTags()).containsEntry("baton.outcome", "released");
        }
    }
}
