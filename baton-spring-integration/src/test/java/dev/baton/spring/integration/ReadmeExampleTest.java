package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.LockClient;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/** The examples of docs/frameworks/spring-integration.md, compiled and run as the page shows them. */
class ReadmeExampleTest {
    private final AtomicInteger batches = new AtomicInteger();

    private void processBatch() {
        batches.incrementAndGet();
    }

    // snippet:start bean
    @Bean
    LockRegistry<DistributedLock> lockRegistry(LockClient client) {
        return new BatonLockRegistry(client);
    }
    // snippet:end bean

    @Test
    void readmeExampleRuns() throws Exception {
        // snippet:start direct
        try (LockClient client = Baton.connect("jdbc:h2:mem:app;DB_CLOSE_DELAY=-1")) {
            LockRegistry<DistributedLock> registry = new BatonLockRegistry(client);
            Lock lock = registry.obtain("orders-batch");
            if (lock.tryLock(5, TimeUnit.SECONDS)) {
                try {
                    processBatch();
                } finally {
                    lock.unlock();
                }
            }
            registry.executeLocked("orders-batch", () -> processBatch());
        }
        // snippet:end direct
        assertThat(batches).hasValue(2);
        try (LockClient client = Baton.connect("jdbc:h2:mem:bean;DB_CLOSE_DELAY=-1")) {
            assertThat(lockRegistry(client).obtain("bean").tryLock()).isTrue();
        }
    }
}
