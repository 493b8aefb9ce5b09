package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.servers.EtcdServer;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Lease#extend} on etcd: a key lives on the client's etcd lease whose TTL is the lease time in
 * whole seconds, renewed by a keep-alive for that TTL, so an extension is at most that many seconds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdExtendTest {
    private static EtcdServer server;

    @BeforeAll
    static void startServer() {
        server = EtcdServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anExtensionIsAtMostTheLeasesWholeSecondTtl() {
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofMillis(1_500))
                .autoRenew(false)
                .operationTimeout(KitTime.operationTimeout())
                .build();
        try (LockClient client = Baton.connect(server.uri() + "/extend", options);
                Lease lease = client.lock("extend-ttl").acquire(KitTime.grant())) {
            assertThatThrownBy(() -> lease.extend(Duration.ofMillis(2_001)))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("'extend-ttl'")
                    .hasMessageContaining(client.backendName())
                    .hasMessageContaining("at most 2s");
            assertThat(lease.isValid())
                    .as("a refused extension leaves the lease as it was")
                    .isTrue();
            lease.extend(Duration.ofSeconds(2));
            lease.checkValid();
        }
    }
}
