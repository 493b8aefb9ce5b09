package dev.baton.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdUriTest {

    @Test
    void parsesEndpointsCredentialsNamespaceAndRoot() {
        EtcdUri uri = EtcdUri.parse("etcd://app:s%40cret@e1:2379,e2,10.0.0.3:2380/billing/?root=/locks/");
        assertThat(uri.endpoints()).containsExactly("e1:2379", "e2:2379", "10.0.0.3:2380");
        assertThat(uri.user()).isEqualTo("app");
        assertThat(uri.password()).isEqualTo("s@cret");
        assertThat(uri.namespace()).isEqualTo("/billing");
        assertThat(uri.root()).isEqualTo("/locks");
        assertThat(uri.tls()).isFalse();
        assertThat(uri.describe()).isEqualTo("etcd (e1:2379,e2:2379,10.0.0.3:2380/billing)");
        assertThat(uri.toString()).doesNotContain("s@cret");
    }

    @Test
    void defaultsAndTls() {
        EtcdUri plain = EtcdUri.parse("ETCD://127.0.0.1");
        assertThat(plain.endpoints()).isEqualTo(List.of("127.0.0.1:2379"));
        assertThat(plain.namespace()).isEmpty();
        assertThat(plain.root()).isEqualTo("/baton/locks");
        assertThat(plain.user()).isNull();
        assertThat(EtcdUri.parse("etcds://h:2379").tls()).isTrue();
        assertThat(EtcdUri.parse("etcd://h:2379?tls=true").tls()).isTrue();
    }

    @Test
    void rejectsBadUrisWithClearMessagesThatHideThePassword() {
        for (String bad : new String[] {
            "etcd://",
            "redis://h:6379",
            "etcd://h:99999",
            "etcd://h:2379,,h2",
            "etcd://h:2379?bogus=1",
            "etcd://h:2379?tls=maybe",
            "etcds://h:2379?tls=false",
            "etcd://h:2379?ca=/etc/hostname",
            "etcds://h:2379?ca=/no/such/file.pem",
            "etcds://h:2379?cert=/etc/hostname",
            "etcd://h:2379?root=/",
            "etcd://h:2379?root=relative",
            "etcd://user@h:2379",
        }) {
            assertThatThrownBy(() -> EtcdUri.parse(bad))
                    .as(bad)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("Baton etcd backend: invalid URI")
                    .hasMessageContaining("Expected etcd[s]://");
        }
        assertThatThrownBy(() -> EtcdUri.parse("etcd://app:topsecret@h:2379?bogus=1"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageNotContaining("topsecret")
                .hasMessageContaining("app:***@");
    }

    @Test
    void anUnknownOptionIsOfferedTheNearestAndEveryOneTheUriTakes() {
        assertThatThrownBy(() -> EtcdUri.parse("etcd://h:2379?roo=/app"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown option 'roo' (did you mean 'root'?); the options are ca, cert,"
                        + " clientName, fair, key, root, tls");
    }

    @Test
    void leaseTimesMapToWholeSecondsRoundedUp() {
        assertThat(EtcdSession.ttlSeconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(EtcdSession.ttlSeconds(Duration.ofMillis(800))).isEqualTo(1);
        assertThat(EtcdSession.ttlSeconds(Duration.ofSeconds(2))).isEqualTo(2);
        assertThat(EtcdSession.ttlSeconds(Duration.ofMillis(2001))).isEqualTo(3);
        assertThat(EtcdSession.ttlSeconds(Duration.ofSeconds(30))).isEqualTo(30);
    }

    @Test
    void namesEncodeWithoutCollisionsOrSeparators() {
        assertThat(EtcdKeys.encode("invoice-42")).isEqualTo("invoice-42");
        assertThat(EtcdKeys.encode("a/b")).isEqualTo("a%2Fb");
        assertThat(EtcdKeys.encode("a%2Fb")).isEqualTo("a%252Fb");
        assertThat(EtcdKeys.encode("../x")).isEqualTo("..%2Fx");
        EtcdKeys keys = new EtcdKeys("/baton/locks");
        assertThat(keys.key("a/b", "0123").toString(java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("/baton/locks/a%2Fb/0123");
        io.etcd.jetcd.ByteSequence value = EtcdKeys.value(dev.baton.LockKind.READ, "0123abcd");
        assertThat(EtcdKeys.isRead(value)).isTrue();
        assertThat(EtcdKeys.isRead(EtcdKeys.value(dev.baton.LockKind.WRITE, "0123abcd")))
                .isFalse();
        assertThat(EtcdKeys.ownerOf(keys.key("a/b", "tag-0"), value)).isEqualTo("0123abcd");
    }

    @Test
    void semaphoreKeysLiveWhereNoLockPrefixReaches() {
        EtcdKeys keys = new EtcdKeys("/baton/locks");
        assertThat(keys.permitPrefixText("a/b")).isEqualTo("/baton/locks/%sem/a%2Fb/");
        assertThat(keys.permitCountText("a/b")).isEqualTo("/baton/locks/%sem/a%2Fb");
        assertThat(keys.permitCountText("a")).doesNotStartWith(keys.permitPrefixText("a"));
        // Lock names that come closest: none of their queue prefixes covers a semaphore key.
        for (String lock : List.of("%sem", "sem", "%sem/a", "%25sem")) {
            assertThat(keys.permitPrefixText("a")).doesNotStartWith(keys.prefixText(lock));
            assertThat(keys.permitCountText("a")).doesNotStartWith(keys.prefixText(lock));
        }
        EtcdKeySlots slots = new EtcdKeySlots(keys);
        io.etcd.jetcd.ByteSequence lockKey = slots.claim("a", "owner-1");
        io.etcd.jetcd.ByteSequence permitKey = slots.claimUnder(keys.permitPrefixText("a"), "owner-2");
        assertThat(permitKey.toString(java.nio.charset.StandardCharsets.UTF_8))
                .startsWith("/baton/locks/%sem/a/")
                .endsWith("-0");
        assertThat(lockKey.toString(java.nio.charset.StandardCharsets.UTF_8)).endsWith("-0");
        assertThat(slots.keyOf("owner-2")).isEqualTo(permitKey);
    }

    @Test
    void keyNamesAreReusedOnlyOnceTheirKeyIsDeleted() {
        EtcdKeySlots slots = new EtcdKeySlots(new EtcdKeys("/baton/locks"));
        io.etcd.jetcd.ByteSequence first = slots.claim("n", "owner-1");
        io.etcd.jetcd.ByteSequence second = slots.claim("n", "owner-2");
        assertThat(second).as("a name in use is not handed out again").isNotEqualTo(first);
        assertThat(slots.keyOf("owner-1")).isEqualTo(first);
        slots.deleted(first);
        assertThat(slots.keyOf("owner-1")).isNull();
        assertThat(slots.claim("n", "owner-3"))
                .as("the deleted key's name comes back")
                .isEqualTo(first);
        assertThat(slots.claim("other", "owner-4").toString(java.nio.charset.StandardCharsets.UTF_8))
                .startsWith("/baton/locks/other/")
                .endsWith("-0");
    }

    @Test
    void slotsBeyondTheFirstAreFreedInAnyOrderAndTheirNamesComeBack() {
        EtcdKeySlots slots = new EtcdKeySlots(new EtcdKeys("/baton/locks"));
        java.util.List<io.etcd.jetcd.ByteSequence> keys = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) {
            keys.add(slots.claim("n", "owner-" + i));
        }
        assertThat(keys).as("twelve keys at once, each its own name").doesNotHaveDuplicates();
        assertThat(keys.get(11).toString(java.nio.charset.StandardCharsets.UTF_8))
                .endsWith("-11");
        slots.deleted(keys.get(11));
        slots.deleted(keys.get(0));
        assertThat(slots.claim("n", "owner-a")).as("the lowest free name first").isEqualTo(keys.get(0));
        assertThat(slots.claim("n", "owner-b")).isEqualTo(keys.get(11));
        for (int i = 0; i < 12; i++) {
            slots.deleted(i == 0 ? slots.keyOf("owner-a") : i == 11 ? slots.keyOf("owner-b") : keys.get(i));
        }
        assertThat(slots.claim("n", "owner-c"))
                .as("all deleted: the first name again")
                .isEqualTo(keys.get(0));
        assertThat(slots.claim("n", "owner-d")).isEqualTo(keys.get(1));
    }
}
