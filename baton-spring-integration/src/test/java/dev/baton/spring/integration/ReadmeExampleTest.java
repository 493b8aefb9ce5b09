package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.LockClient;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.locks.LockRegistry;

/** The example of README.md, compiled and run as printed there. */
class ReadmeExampleTest {
    private final AtomicInteger batches = new AtomicInteger();

    private void processBatch() {
        batches.incrementAndGet();
    }

    // README: the Spring bean (annotate with @Bean in a @Configuration class).
    LockRegistry<DistributedLock> lockRegistry(LockClient client) {
        return new BatonLockRegistry(client);
    }

    @Test
    void readmeExampleRuns() throws Exception {
        // README example starts
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
        // README example ends
        assertThat(batches).hasValue(2);
        try (LockClient client = Baton.connect("jdbc:h2:mem:bean;DB_CLOSE_DELAY=-1")) {
            assertThat(lockRegistry(client).obtain("bean").tryLock()).isTrue();
        }
    }
}
