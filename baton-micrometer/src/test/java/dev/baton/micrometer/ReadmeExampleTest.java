package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The example of docs/frameworks/micrometer.md, run as the page shows it (on in-process H2). */
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
}
