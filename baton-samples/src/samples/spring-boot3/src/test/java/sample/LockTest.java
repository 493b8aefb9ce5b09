package sample;

import dev.baton.LockClient;
import dev.baton.spring.integration.BatonLockRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.SpringVersion;
import org.springframework.integration.support.locks.LockRegistry;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() throws Exception {
        String boot = SpringBootVersion.getVersion();
        String framework = SpringVersion.getVersion();
        String integration = LockRegistry.class.getPackage().getImplementationVersion();
        String micrometer = MeterRegistry.class.getPackage().getImplementationVersion();
        System.out.println("baton-sample: runs on Spring Boot " + boot + ", Spring Framework " + framework
                + ", Spring Integration " + integration + ", Micrometer " + micrometer);
        check(boot.startsWith("3.5."), "Spring Boot 3.5, got " + boot);
        check(framework.startsWith("6.2."), "Spring Framework 6.2, got " + framework);
        check(integration.startsWith("6.5."), "Spring Integration 6.5, got " + integration);
        check(micrometer.startsWith("1.15."), "Micrometer 1.15, got " + micrometer);

        String postgres = Locks.uri("BATON_SAMPLE_POSTGRES_URI");
        try (ConfigurableApplicationContext context = SpringApplication.run(
                SampleApplication.class, "--baton.uri=" + postgres, "--spring.main.banner-mode=off")) {
            SampleApplication.Billing billing = context.getBean(SampleApplication.Billing.class);
            long first = billing.bill(42);
            long second = billing.bill(42);
            check(second > first, "@Locked: fencing token " + second + " after " + first);
            System.out.println("baton-sample: postgresql ran a @Locked method twice (fencing tokens " + first + ", "
                    + second + ")");

            Status health = context.getBean("batonHealthIndicator", HealthIndicator.class)
                    .getHealth(true)
                    .getStatus();
            check(Status.UP.equals(health), "the baton health indicator: " + health);
            long waits = context.getBean(MeterRegistry.class)
                    .get("baton.lock.wait")
                    .tag("outcome", "acquired")
                    .timer()
                    .count();
            check(waits >= 2, "baton.lock.wait{outcome=acquired} counted " + waits);
            System.out.println("baton-sample: postgresql health " + health + ", baton.lock.wait counted " + waits);

            LockClient client = context.getBean(LockClient.class);
            BatonLockRegistry registry = new BatonLockRegistry(client);
            Lock lock = registry.obtain("sample-spring-integration-6.5");
            check(lock.tryLock(10, TimeUnit.SECONDS), "the registry's lock was not free");
            registry.renewLock("sample-spring-integration-6.5");
            lock.unlock();
            AtomicInteger runs = new AtomicInteger();
            registry.executeLocked("sample-spring-integration-6.5", () -> {
                runs.incrementAndGet();
            });
            check(runs.get() == 1, "executeLocked ran " + runs.get() + " times");
            System.out.println("baton-sample: postgresql locked and unlocked through Spring Integration "
                    + integration + "'s LockRegistry");
            Locks.takeAndRelease("postgresql", client);
        }
        Locks.takeAndRelease("redis", Locks.uri("BATON_SAMPLE_REDIS_URI"));
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
