package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The example of README.md, run as printed there (on in-process H2). */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRecordsTheLockItTook() throws IOException {
        // README example starts
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
        // README example ends
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
        assertThat(Files.readString(Path.of("README.md")))
                .as("README.md shows the example as this test runs it")
                .contains(example());
    }

    /** The lines between this file's markers, as README.md's code block has them. */
    private static String example() throws IOException {
        String source = Files.readString(Path.of("src/test/java/dev/baton/micrometer/ReadmeExampleTest.java"));
        String block = source.substring(
                source.indexOf('\n', source.indexOf("// README example starts")) + 1,
                source.indexOf("        // README example ends"));
        return block.replaceAll("(?m)^ {8}", "");
    }
}
