package dev.baton.spring;

import static dev.baton.spring.BatonAutoConfigurationTest.rootMessage;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * What a ShedLock {@code @SchedulerLock} user needs from {@link Locked}, in a real application with
 * meters: a job whose lock is taken is skipped quietly (debug log, counted as {@code timed_out}), and
 * a job shorter than its {@code lockAtLeastFor} keeps the lock that long, also against a later call
 * on the same thread, as a scheduler's single thread makes it.
 */
class LockedSchedulingTest {
    private static ConfigurableApplicationContext context;
    private static Jobs jobs;
    private static LockClient client;
    private static MeterRegistry meters;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Jobs.class)
    static class App {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    static class Jobs {
        final AtomicInteger reports = new AtomicInteger();
        final AtomicInteger cleanups = new AtomicInteger();

        @Locked(name = "report", skipIfLocked = true)
        public void report() {
            reports.incrementAndGet();
        }

        @Locked(name = "cleanup", skipIfLocked = true, lockAtLeastFor = "5s")
        public Optional<Integer> cleanup() {
            return Optional.of(cleanups.incrementAndGet());
        }

        /** Through methods: a test reading the proxy's fields would see the proxy's own, empty ones. */
        public int reports() {
            return reports.get();
        }

        public int cleanups() {
            return cleanups.get();
        }
    }

    static class NotSkippable {
        @Locked(name = "count", skipIfLocked = true)
        public int count() {
            return 1;
        }
    }

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "baton.uri=jdbc:h2:mem:scheduling;DB_CLOSE_DELAY=-1",
                        "spring.main.banner-mode=off",
                        "logging.level.dev.baton.spring=debug")
                .run();
        jobs = context.getBean(Jobs.class);
        client = context.getBean(LockClient.class);
        meters = context.getBean(MeterRegistry.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static double timedOut() {
        Timer timer = meters.find("baton.lock.wait").tag("outcome", "timed_out").timer();
        return timer == null ? 0 : timer.count();
    }

    /** Runs {@code job} on a thread of its own: as another node's scheduler would, for this JVM's locks. */
    private static <T> T elsewhere(Callable<T> job) throws Exception {
        return Await.result(
                CompletableFuture.supplyAsync(() -> {
                    try {
                        return job.call();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }),
                KitTime.grant());
    }

    @Test
    void aJobWhoseLockIsTakenIsSkippedQuietlyAndCounted() throws Exception {
        double before = timedOut();
        StandardOutput output = new StandardOutput();
        try (output;
                Lease held = client.lock("report").acquire(Duration.ofSeconds(5))) {
            elsewhere(() -> {
                jobs.report();
                return null;
            });
        }
        assertThat(jobs.reports()).as("skipped, without an exception").isZero();
        assertThat(timedOut() - before).isEqualTo(1);
        List<String> lines =
                output.text().lines().filter(line -> line.contains("'report'")).toList();
        assertThat(lines).noneMatch(line -> line.contains("WARN") || line.contains("ERROR"));
        assertThat(lines)
                .filteredOn(line -> line.contains("skipped"))
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("DEBUG")
                        .contains("@Locked Jobs.report() skipped: the lock 'report' on jdbc-table (H2) is held"
                                + " elsewhere"));

        jobs.report();
        assertThat(jobs.reports()).as("runs when free").isOne();
    }

    @Test
    void aShortJobKeepsItsLockForLockAtLeastForOnEveryThread() throws Exception {
        double before = timedOut();
        assertThat(jobs.cleanup()).contains(1);
        assertThat(client.lock("cleanup").isHeldByCurrentThread())
                .as("kept after the call returned")
                .isTrue();

        assertThat(jobs.cleanup())
                .as("the same thread, as a scheduler's one thread")
                .isEmpty();
        assertThat(elsewhere(jobs::cleanup)).as("another thread").isEmpty();
        assertThat(jobs.cleanups()).isOne();
        assertThat(timedOut() - before).as("both skips counted").isEqualTo(2);

        Awaitility.await("the release after lockAtLeastFor")
                .atMost(KitTime.bound(Duration.ofSeconds(5)))
                .until(() -> elsewhere(() -> {
                    Optional<Lease> free = client.lock("cleanup").tryAcquire();
                    free.ifPresent(Lease::close);
                    return free.isPresent();
                }));
        assertThat(jobs.cleanup()).contains(2);
    }

    @Test
    void skipIfLockedOnAMethodThatReturnsAValueFailsStartup() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BatonAutoConfiguration.class))
                .withPropertyValues("baton.uri=jdbc:h2:mem:not-skippable")
                .withBean(NotSkippable.class)
                .run(run -> assertThat(rootMessage(run.getStartupFailure()))
                        .contains("@Locked NotSkippable.count(): skipIfLocked = true needs a method that returns void"
                                + " or Optional"));
    }
}
