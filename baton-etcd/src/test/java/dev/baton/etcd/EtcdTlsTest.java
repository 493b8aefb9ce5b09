package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.EtcdServer;
import dev.baton.servers.EtcdTls;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code etcds://} against a member that speaks only TLS and asks for a client certificate: locks,
 * waiting (a watch over TLS) and leases work with the right files; a missing or wrong one is refused
 * with a message that names it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdTlsTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(5))
            .operationTimeout(KitTime.operationTimeout())
            .build();

    @TempDir
    static Path certificates;

    private static EtcdTls tls;
    private static EtcdServer server;

    @BeforeAll
    static void start() {
        tls = EtcdTls.create(certificates);
        server = EtcdServer.startTls(tls);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String name() {
        return "tls-" + UUID.randomUUID();
    }

    @Test
    void withTheAuthorityAndAClientCertificateLocksAndWaitsWork() throws Exception {
        String name = name();
        try (LockClient first = Baton.connect(server.uri(), OPTIONS);
                LockClient second = Baton.connect(server.uri(), OPTIONS)) {
            Lease held = first.lock(name).acquire(KitTime.grant());
            CompletableFuture<Lease> waiter =
                    CompletableFuture.supplyAsync(() -> second.lock(name).acquire(Duration.ofSeconds(30)));
            long token = held.fencingToken();
            held.close();
            try (Lease next = Await.result(waiter, KitTime.grant())) {
                assertThat(next.isValid()).isTrue();
                assertThat(next.fencingToken()).isGreaterThan(token);
            }
        }
    }

    @Test
    void theTlsParameterIsTheSameAsTheScheme() {
        String uri = server.uri().replace("etcds://", "etcd://") + "&tls=true";
        try (LockClient client = Baton.connect(uri, OPTIONS);
                Lease lease = client.lock(name()).acquire(KitTime.grant())) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void withoutTheAuthorityTheServerIsNotTrustedAndTheMessageSaysCa() {
        String uri = "etcds://" + server.endpoints() + "?cert=" + tls.clientCert() + "&key=" + tls.clientKey();
        String name = name();
        try (LockClient client = Baton.connect(uri, OPTIONS)) {
            assertThatThrownBy(() -> client.lock(name).acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("certificate")
                    .hasMessageContaining("ca=");
        }
    }

    @Test
    void withoutAClientCertificateTheServerRefusesAndTheMessageSaysCertAndKey() {
        String uri = "etcds://" + server.endpoints() + "?ca=" + tls.ca();
        String name = name();
        try (LockClient client = Baton.connect(uri, OPTIONS)) {
            assertThatThrownBy(() -> client.lock(name).acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("cert=")
                    .hasMessageContaining("key=");
        }
    }

    @Test
    void plainEtcdAgainstATlsServerSaysEtcds() {
        String name = name();
        try (LockClient client = Baton.connect("etcd://" + server.endpoints(), OPTIONS)) {
            assertThatThrownBy(() -> client.lock(name).acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("etcds://");
        }
    }
}
