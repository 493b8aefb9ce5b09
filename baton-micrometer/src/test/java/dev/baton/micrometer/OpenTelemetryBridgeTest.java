package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.tck.KitTime;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BatonObservations} through Micrometer Tracing's OpenTelemetry bridge: the spans reach an
 * OpenTelemetry SDK exporter with their attributes, in the request's trace, on H2 through baton-jdbc.
 */
@Timeout(60)
class OpenTelemetryBridgeTest {

    @Test
    void anAcquireAndItsHoldAreOpenTelemetrySpansUnderTheRequest() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        try (SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build()) {
            OtelCurrentTraceContext current = new OtelCurrentTraceContext();
            OtelTracer tracer = new OtelTracer(
                    provider.get("baton-test"),
                    current,
                    event -> {},
                    new OtelBaggageManager(current, List.of(), List.of()));
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
            String uri = "jdbc:h2:mem:otel-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;strategy=table";
            long token;
            try (LockClient client = Baton.connect(
                    uri,
                    LockOptions.builder()
                            .listener(BatonObservations.builder(registry).build())
                            .build())) {
                Observation request = Observation.start("request", registry);
                try (Observation.Scope scope = request.openScope();
                        Lease lease = client.lock("report").acquire(KitTime.grant())) {
                    token = lease.fencingToken();
                } finally {
                    request.stop();
                }
            }
            List<SpanData> spans = exporter.getFinishedSpanItems();
            SpanData root = find(spans, "request");
            SpanData acquire = find(spans, "baton.lock.acquire");
            SpanData hold = find(spans, "baton.lock.hold");
            for (SpanData span : List.of(acquire, hold)) {
                assertThat(span.getTraceId()).isEqualTo(root.getTraceId());
                assertThat(span.getParentSpanId()).isEqualTo(root.getSpanId());
                assertThat(span.getAttributes().get(AttributeKey.stringKey("baton.lock.name")))
                        .isEqualTo("report");
                assertThat(span.getAttributes().get(AttributeKey.stringKey("baton.fencing.token")))
                        .isEqualTo(Long.toString(token));
            }
            assertThat(acquire.getAttributes().get(AttributeKey.stringKey("baton.outcome")))
                    .isEqualTo("acquired");
            assertThat(hold.getAttributes().get(AttributeKey.stringKey("baton.outcome")))
                    .isEqualTo("released");
        }
    }

    private static SpanData find(List<SpanData> spans, String name) {
        return spans.stream()
                .filter(span -> span.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " among " + spans));
    }
}
