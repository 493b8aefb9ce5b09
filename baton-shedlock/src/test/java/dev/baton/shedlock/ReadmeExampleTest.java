package dev.baton.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.LockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;

/** The examples of docs/frameworks/shedlock.md, compiled and run as the page shows them. */
class ReadmeExampleTest {
    private final AtomicInteger reports = new AtomicInteger();

    private void sendNightlyReport() {
        reports.incrementAndGet();
    }

    // snippet:start bean
    @Bean
    LockProvider lockProvider(LockClient client) {
        return new BatonLockProvider(client);
    }
    // snippet:end bean

    @Test
    void readmeExampleRunsTheTaskOnce() {
        // snippet:start direct
        try (LockClient client = Baton.connect("jdbc:h2:mem:app;DB_CLOSE_DELAY=-1");
                BatonLockProvider provider = new BatonLockProvider(client)) {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
            LockConfiguration nightly = new LockConfiguration(
                    Instant.now(), "nightly-report", Duration.ofMinutes(10), Duration.ofSeconds(30));
            executor.executeWithLock((Runnable) this::sendNightlyReport, nightly);
            // lockAtLeastFor (30 s) keeps the lock after the run: a second run now is skipped.
            executor.executeWithLock((Runnable) this::sendNightlyReport, nightly);
        }
        // snippet:end direct
        assertThat(reports).hasValue(1);
        try (LockClient client = Baton.connect("jdbc:h2:mem:bean;DB_CLOSE_DELAY=-1");
                BatonLockProvider bean = (BatonLockProvider) lockProvider(client)) {
            assertThat(bean.lock(new LockConfiguration(Instant.now(), "bean", Duration.ofMinutes(1), Duration.ZERO)))
                    .isPresent();
        }
    }
}
