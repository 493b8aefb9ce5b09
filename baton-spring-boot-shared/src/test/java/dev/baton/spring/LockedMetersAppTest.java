package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.locked.LockedContext;
import dev.baton.locked.LockedTimeoutException;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * A whole Spring Boot application as a user writes one: the starter and baton-micrometer on the class
 * path, a MeterRegistry bean, a {@link Locked} method; it takes locks, one call times out behind
 * another, and the meters say so (printed to the log as the application would see them).
 */
class LockedMetersAppTest {
    private static final Logger log = LoggerFactory.getLogger(LockedMetersAppTest.class);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Reports.class)
    static class App {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    static class Reports {
        @Locked(name = "report-#{#day}", waitTime = "200ms")
        public long build(String day, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
            entered.countDown();
            assertThat(leave.await(10, TimeUnit.SECONDS)).isTrue();
            return LockedContext.fencingToken();
        }
    }

    @Test
    void lockedCallsShowUpInTheMeters() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("baton.uri=jdbc:h2:mem:metered-app", "spring.main.banner-mode=off")
                .run()) {
            Reports reports = context.getBean(Reports.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> call(reports, entered, leave));
            Await.condition("the first call inside", KitTime.grant(), () -> entered.getCount() == 0);
            // The same day while the first call holds the lock: not acquired within 200 ms.
            assertThatThrownBy(() -> reports.build("2026-11-25", new CountDownLatch(1), new CountDownLatch(0)))
                    .isInstanceOf(LockedTimeoutException.class)
                    .hasMessageContaining("report-2026-11-25");
            leave.countDown();
            long token = Await.result(first, KitTime.grant());
            long next = reports.build("2026-11-25", new CountDownLatch(1), new CountDownLatch(0));
            assertThat(next).isGreaterThan(token);

            log.info(
                    "meters after two locked calls and one timed out:\n{}",
                    registry.getMeters().stream()
                            .filter(meter -> meter.getId().getName().startsWith("baton."))
                            .map(LockedMetersAppTest::describe)
                            .sorted()
                            .collect(Collectors.joining("\n")));
            assertThat(registry.get("baton.lock.wait")
                            .tag("outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(registry.get("baton.lock.wait")
                            .tag("outcome", "timed_out")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("baton.lock.held").timer().count()).isEqualTo(2);
            assertThat(registry.get("baton.lock.leases.held").gauge().value()).isZero();
        }
    }

    private static long call(Reports reports, CountDownLatch entered, CountDownLatch leave) {
        try {
            return reports.build("2026-11-25", entered, leave);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String describe(Meter meter) {
        StringBuilder line = new StringBuilder(meter.getId().getName());
        meter.getId()
                .getTags()
                .forEach(
                        tag -> line.append(' ').append(tag.getKey()).append('=').append(tag.getValue()));
        meter.measure().forEach(m -> line.append("  ")
                .append(m.getStatistic().name().toLowerCase(java.util.Locale.ROOT))
                .append('=')
                .append(String.format(java.util.Locale.ROOT, "%.3f", m.getValue())));
        return line.toString();
    }
}
