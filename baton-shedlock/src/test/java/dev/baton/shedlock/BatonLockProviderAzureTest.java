package dev.baton.shedlock;

import static dev.baton.shedlock.BatonLockProviderContract.config;
import static java.time.Duration.ZERO;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.servers.AzuriteServer;
import dev.baton.tck.KitTime;
import java.time.Duration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A backend with lease limits (Azure Blob leases last 15 s to 60 s, on Azurite): a lockAtMostFor
 * outside them is refused with the lock, lockAtMostFor, backend and range named; one inside works.
 */
@Timeout(60)
class BatonLockProviderAzureTest {
    private static AzuriteServer server;

    @BeforeAll
    static void start() {
        server = AzuriteServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void lockAtMostForOutsideTheBackendsLeaseLimitsIsRefusedClearly() {
        // The operation timeout a single-threaded emulator needs on this machine (the default 5 s
        // is an idle Azure account's).
        LockOptions options = LockOptions.builder()
                .operationTimeout(KitTime.operationTimeout(AzuriteServer.CLIENT_OPERATION_TIMEOUT))
                .build();
        try (LockClient client = Baton.connect(server.uri("baton-shedlock"), options);
                LockClient other = Baton.connect(server.uri("baton-shedlock"), options);
                BatonLockProvider provider = new BatonLockProvider(client);
                BatonLockProvider elsewhere = new BatonLockProvider(other)) {
            for (Duration outside : new Duration[] {ofMinutes(5), ofSeconds(1)}) {
                assertThatThrownBy(() -> provider.lock(config("nightly", outside, ZERO)))
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("ShedLock lock 'nightly'")
                        .hasMessageContaining("lockAtMostFor " + outside)
                        .hasMessageContaining(client.backendName())
                        .hasMessageContaining("15 s to 60 s");
            }

            SimpleLock lock =
                    provider.lock(config("nightly", ofSeconds(30), ZERO)).orElseThrow();
            assertThat(elsewhere.lock(config("nightly", ofSeconds(30), ZERO))).isEmpty();
            // Azure renews a lease only for the duration it was acquired with.
            assertThatThrownBy(() -> lock.extend(ofSeconds(45), ZERO))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("ShedLock lock 'nightly'")
                    .hasMessageContaining("15s to 30s");
            SimpleLock extended = lock.extend(ofSeconds(30), ZERO).orElseThrow();
            assertThat(elsewhere.lock(config("nightly", ofSeconds(30), ZERO))).isEmpty();
            extended.unlock();
            elsewhere.lock(config("nightly", ofSeconds(30), ZERO)).orElseThrow().unlock();
        }
    }
}
