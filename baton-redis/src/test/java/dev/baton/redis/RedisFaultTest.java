package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Servers that restart, refuse the password, or cannot run scripts. */
@Timeout(120)
class RedisFaultTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(2))
            .operationTimeout(KitTime.operationTimeout())
            .build();

    @Test
    void holderLearnsAtItsNextRenewalThatARestartWithoutPersistenceLostItsLease() throws Exception {
        try (RedisServer server = RedisServer.startEmbedded();
                LockClient holder = Baton.connect(server.uri(), OPTIONS);
                LockClient other = Baton.connect(server.uri(), OPTIONS)) {
            String name = "restart-" + UUID.randomUUID();
            Lease lease = holder.lock(name).acquire(KitTime.grant());
            CompletableFuture<LockLostException> lost = new CompletableFuture<>();
            lease.onLost(lost::complete);

            server.restart();
            // At the next renewal, and never past the validity the last one granted.
            assertThat(Await.result(lost, OPTIONS.leaseTime().plus(KitTime.SLACK)))
                    .hasMessageContaining(name)
                    .hasMessageContaining("no longer has this grant");
            assertThat(lease.isValid()).isFalse();
            try (Lease next = other.lock(name).acquire(KitTime.grant())) {
                assertThat(next.fencingToken())
                        .as("the counter is seeded from the server clock, so it survives the data loss")
                        .isGreaterThan(lease.fencingToken());
            }
            lease.close();
        }
    }

    @Test
    void wrongPasswordGivesAClearError() {
        try (RedisServer server = RedisServer.startEmbedded("--requirepass", "right");
                LockClient wrong = Baton.connect("redis://:wrong@" + server.host() + ":" + server.port(), OPTIONS);
                LockClient right =
                        Baton.connect("redis://:right@" + server.host() + ":" + server.port() + "/3", OPTIONS)) {
            assertThatThrownBy(() -> wrong.lock("secret").acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("secret")
                    .hasMessageContaining("authentication failed")
                    .hasMessageContaining("password")
                    .hasMessageNotContaining("wrong@");
            try (Lease lease = right.lock("secret").acquire(KitTime.grant())) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void serverWithoutScriptingGivesAClearError() {
        try (RedisServer server =
                        RedisServer.startEmbedded("--rename-command", "EVALSHA", "", "--rename-command", "EVAL", "");
                LockClient client = Baton.connect(server.uri(), OPTIONS)) {
            assertThatThrownBy(() -> client.lock("scripted").acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("scripted")
                    .hasMessageContaining(client.backendName())
                    .hasMessageContaining("Lua scripts");
        }
    }

    @Test
    void scriptsAreReloadedAfterScriptFlush() throws Exception {
        try (RedisServer server = RedisServer.startEmbedded();
                LockClient client = Baton.connect(server.uri(), OPTIONS)) {
            client.lock("flushed").acquire(KitTime.grant()).close();
            server.restart(); // an empty script cache, as after SCRIPT FLUSH or a failover
            // A reconnection, then the grant with the scripts loaded again.
            try (Lease lease = client.lock("flushed")
                    .acquire(KitTime.bound(OPTIONS.operationTimeout().multipliedBy(2)))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }
}
