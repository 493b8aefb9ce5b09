package sample;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.shedlock.BatonLockProvider;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LockTest {

    @Configuration
    @EnableSchedulerLock(
            interceptMode = EnableSchedulerLock.InterceptMode.PROXY_METHOD,
            defaultLockAtMostFor = "30s")
    static class Config {
        @Bean
        LockClient lockClient() {
            return Baton.connect(Locks.uri("BATON_SAMPLE_REDIS_URI"));
        }

        @Bean
        BatonLockProvider lockProvider(LockClient client) {
            return new BatonLockProvider(client);
        }

        @Bean
        Report report() {
            return new Report();
        }
    }

    static class Report {
        private final AtomicInteger runs = new AtomicInteger();

        @SchedulerLock(name = "sample-shedlock-report")
        public void run() {
            LockAssert.assertLocked();
            runs.incrementAndGet();
        }

        public int runs() {
            return runs.get();
        }
    }

    @Test
    void takesAndReleasesALockOnEachBackend() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
            Report report = context.getBean(Report.class);
            report.run();
            report.run(); // lockAtLeastFor 0: the first run released the lock, so this one runs too
            if (report.runs() != 2) {
                throw new AssertionError("@SchedulerLock ran " + report.runs() + " times, not 2");
            }
            System.out.println("baton-sample: redis ran a @SchedulerLock method twice under ShedLock");
            Locks.takeAndRelease("redis", context.getBean(LockClient.class));
        }
    }
}
