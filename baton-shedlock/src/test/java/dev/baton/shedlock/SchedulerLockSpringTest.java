package dev.baton.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.tck.KitTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A real {@code @SchedulerLock} task in a Spring context whose only ShedLock bean is {@code new
 * BatonLockProvider(client)}, on H2: every run happens under the Baton lock, which another client
 * cannot take meanwhile.
 */
@Timeout(60)
class SchedulerLockSpringTest {
    static final String URI = "jdbc:h2:mem:baton-shedlock-spring;DB_CLOSE_DELAY=-1";

    /** For each run: whether another client could take the lock while the task ran. */
    static final List<Boolean> takenFromOutside = new CopyOnWriteArrayList<>();

    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class Application {
        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return Baton.connect(URI);
        }

        @Bean
        LockProvider lockProvider(LockClient client) {
            return new BatonLockProvider(client);
        }

        @Bean
        ReportJob reportJob() {
            return new ReportJob();
        }
    }

    static class ReportJob {
        @Scheduled(fixedDelay = 20)
        @SchedulerLock(name = "spring-report")
        public void run() {
            LockAssert.assertLocked();
            try (LockClient outside = Baton.connect(URI)) {
                takenFromOutside.add(outside.lock("spring-report").tryAcquire().isPresent());
            }
        }
    }

    @Test
    void scheduledTaskRunsUnderTheBatonLock() {
        List<Boolean> seen;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class)) {
            // Three runs 20 ms apart, the first loading a Baton client into this JVM: a cold start.
            await().atMost(KitTime.COLD_START).until(() -> takenFromOutside.size() >= 3);
            // Taken while the context runs: a run still going while the context closes may see its
            // lock released by the LockClient bean's close, which is Spring's shutdown order, not ShedLock.
            seen = List.copyOf(takenFromOutside);
        }
        assertThat(seen).hasSizeGreaterThanOrEqualTo(3).containsOnly(false);
    }
}
