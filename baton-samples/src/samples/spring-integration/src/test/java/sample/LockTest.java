package sample;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.spring.integration.BatonLockRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() throws Exception {
        try (LockClient client = Baton.connect(Locks.uri("BATON_SAMPLE_ETCD_URI"))) {
            BatonLockRegistry registry = new BatonLockRegistry(client);
            Lock lock = registry.obtain("sample-spring-integration");
            if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the registry's lock was not free");
            }
            lock.unlock();
            AtomicInteger runs = new AtomicInteger();
            registry.executeLocked("sample-spring-integration", () -> {
                runs.incrementAndGet();
            });
            if (runs.get() != 1) {
                throw new AssertionError("executeLocked ran " + runs.get() + " times");
            }
            System.out.println("baton-sample: etcd locked and unlocked through Spring Integration's LockRegistry");
            Locks.takeAndRelease("etcd", client);
        }
    }
}
