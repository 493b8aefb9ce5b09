package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.EtcdServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What etcd refuses, as the user reads it: wrong credentials, missing credentials, a user without
 * permission on Baton's prefix (on a member of its own, with authentication on).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdRefusalsTest {
    private static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(KitTime.LEASE)
            .operationTimeout(KitTime.operationTimeout())
            .build();

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Test
    void authenticationFailuresSayWhatToFix() throws Exception {
        try (EtcdServer server = EtcdServer.start()) {
            String endpoint = server.endpoints().split(",")[0];
            try (Client admin = Client.builder().endpoints("http://" + endpoint).build()) {
                var auth = admin.getAuthClient();
                Await.result(auth.roleAdd(bytes("root")), KitTime.grant());
                Await.result(auth.userAdd(bytes("root"), bytes("rootpw")), KitTime.grant());
                Await.result(auth.userGrantRole(bytes("root"), bytes("root")), KitTime.grant());
                Await.result(auth.roleAdd(bytes("other")), KitTime.grant());
                Await.result(
                        auth.roleGrantPermission(
                                bytes("other"), bytes("/elsewhere/"), bytes("/elsewhere0"), Permission.Type.READWRITE),
                        KitTime.grant());
                Await.result(auth.userAdd(bytes("app"), bytes("apppw")), KitTime.grant());
                Await.result(auth.userGrantRole(bytes("app"), bytes("other")), KitTime.grant());
                Await.result(auth.authEnable(), KitTime.grant());
            }
            String name = "auth-" + UUID.randomUUID();
            try (LockClient wrong = Baton.connect("etcd://root:nope@" + endpoint, OPTIONS)) {
                assertThatThrownBy(() -> wrong.lock(name).acquire(KitTime.grant()))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining(name)
                        .hasMessageContaining("refused user 'root'")
                        .hasMessageContaining("password");
            }
            try (LockClient anonymous = Baton.connect("etcd://" + endpoint, OPTIONS)) {
                assertThatThrownBy(() -> anonymous.lock(name).acquire(KitTime.grant()))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("put user:password in the URI");
            }
            try (LockClient denied = Baton.connect("etcd://app:apppw@" + endpoint, OPTIONS)) {
                assertThatThrownBy(() -> denied.lock(name).acquire(KitTime.grant()))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("denied user 'app'")
                        .hasMessageContaining("readwrite");
            }
            try (LockClient root = Baton.connect("etcd://root:rootpw@" + endpoint, OPTIONS);
                    Lease lease = root.lock(name).acquire(KitTime.grant())) {
                assertThat(lease.isValid()).as("the right credentials work").isTrue();
            }
        }
    }
}
