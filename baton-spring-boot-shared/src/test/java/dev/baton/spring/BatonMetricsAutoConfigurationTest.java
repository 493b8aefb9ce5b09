package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** With a MeterRegistry bean, the auto-configured client's locks show up as meters (on a real H2). */
class BatonMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(BatonMetricsAutoConfiguration.class, BatonAutoConfiguration.class));

    @Test
    void aLockTakenThroughTheClientMovesItsMeters() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-metrics")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    LockClient client = context.getBean(LockClient.class);
                    try (Lease lease = client.lock("metered").acquire(Duration.ofSeconds(5))) {
                        assertThat(registry.get("baton.lock.leases.held")
                                        .gauge()
                                        .value())
                                .isEqualTo(1.0);
                    }
                    assertThat(registry.get("baton.lock.wait")
                                    .tag("outcome", "acquired")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("baton.lock.held").timer().count()).isEqualTo(1);
                    assertThat(registry.get("baton.lock.leases.held").gauge().value())
                            .isEqualTo(0.0);
                });
    }

    @Test
    void withoutAMeterRegistryNoListenerIsAdded() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-no-metrics").run(context -> {
            assertThat(context).doesNotHaveBean("batonMetersCustomizer");
            assertThat(context.getBean(LockClient.class).options().listeners()).isEmpty();
        });
    }
}
