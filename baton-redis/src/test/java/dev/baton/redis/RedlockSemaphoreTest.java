package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Redlock has no semaphores (see {@link RedlockBackend#supportsPermits()}): both the API and the
 * backend refuse them before any I/O, saying why and what to use instead. No server is needed.
 */
class RedlockSemaphoreTest {
    private static final String URI = "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";
    private static final LockOptions OPTIONS = LockOptions.builder().build();

    @Test
    void theClientRefusesASemaphoreOnRedlock() {
        try (LockClient client = Baton.connect(URI, OPTIONS)) {
            assertThatThrownBy(() -> client.semaphore("jobs", 2))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'jobs'")
                    .hasMessageContaining("redlock");
        }
    }

    @Test
    void theBackendRefusesAPermitRequestWithTheReason() {
        try (LockBackend backend = new RedisLockBackendProvider().create(URI, OPTIONS)) {
            assertThat(backend.supportsPermits()).isFalse();
            LockRequest permit = LockRequest.builder("jobs", "0".repeat(32), LockKind.PERMIT, Duration.ofSeconds(5))
                    .permits(2)
                    .build();
            assertThatThrownBy(() -> backend.tryAcquire(permit))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'jobs'")
                    .hasMessageContaining("majority")
                    .hasMessageContaining("redis-sentinel://");
        }
    }
}
