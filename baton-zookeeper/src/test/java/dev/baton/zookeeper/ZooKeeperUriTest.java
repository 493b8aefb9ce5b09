package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ZooKeeperUriTest {

    @Test
    void parsesServersChrootCredentialsAndParameters() {
        ZooKeeperUri uri = ZooKeeperUri.parse("zookeeper://app:s%40cret@zk1:2181,zk2:2182/apps/billing"
                + "?sessionTimeout=4s&connectionTimeout=1500ms&onSuspended=wait");
        assertThat(uri.connectString()).isEqualTo("zk1:2181,zk2:2182");
        assertThat(uri.chroot()).isEqualTo("/apps/billing");
        assertThat(uri.root()).isEqualTo("/baton/locks");
        assertThat(uri.sessionTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(uri.connectionTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(uri.waitForReconnect()).isTrue();
        assertThat(uri.digest()).isEqualTo("app:s@cret");
        assertThat(uri.creatorOnlyAcl())
                .as("credentials default to the creator-only ACL")
                .isTrue();
    }

    @Test
    void defaults() {
        ZooKeeperUri uri = ZooKeeperUri.parse("ZooKeeper://127.0.0.1:2181");
        assertThat(uri.chroot()).isEmpty();
        assertThat(uri.sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(uri.connectionTimeout()).isNull();
        assertThat(uri.waitForReconnect()).isFalse();
        assertThat(uri.digest()).isNull();
        assertThat(uri.creatorOnlyAcl()).isFalse();
    }

    @Test
    void rejectsBadUrisWithClearMessagesThatHideThePassword() {
        String[] bad = {
            "redis://h:1",
            "zookeeper://",
            "zookeeper://h:99999",
            "zookeeper://h:1/../x",
            "zookeeper://h:1?sessionTimeout=soon",
            "zookeeper://h:1?onSuspended=maybe",
            "zookeeper://h:1?acl=creator",
            "zookeeper://h:1?colour=blue",
            "zookeeper://h:1?root=/",
        };
        for (String uri : bad) {
            assertThatThrownBy(() -> ZooKeeperUri.parse(uri))
                    .as(uri)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("ZooKeeper")
                    .hasMessageContaining("Expected zookeeper://");
        }
        assertThatThrownBy(() -> ZooKeeperUri.parse("zookeeper://u:topsecret@h:1?colour=blue"))
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void anUnknownOptionIsOfferedTheNearestAndEveryOneTheUriTakes() {
        assertThatThrownBy(() -> ZooKeeperUri.parse("zookeeper://h:1?sesionTimeout=5s"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown option 'sesionTimeout' (did you mean 'sessionTimeout'?); the options"
                        + " are acl, clientName, connectionTimeout, fair, onSuspended, root, sessionTimeout");
    }

    @Test
    void theRemovedExclusiveNodesParameterIsRefusedWithWhatReplacedIt() {
        assertThatThrownBy(() -> ZooKeeperUri.parse("zookeeper://h:1?exclusiveNodes=readwrite"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("exclusiveNodes is gone")
                .hasMessageContaining("readWriteLock(name): Curator read/write nodes");
    }

    @Test
    void namesBecomeOneSafeInjectivePathSegment() {
        assertThat(ZooKeeperLockPaths.encode("invoice-42")).isEqualTo("invoice-42");
        assertThat(ZooKeeperLockPaths.encode("../../etc/passwd")).isEqualTo("..%2F..%2Fetc%2Fpasswd");
        assertThat(ZooKeeperLockPaths.encode("..")).isEqualTo("%2E%2E");
        assertThat(ZooKeeperLockPaths.encode(".")).isEqualTo("%2E");
        assertThat(ZooKeeperLockPaths.encode("a%2F")).isNotEqualTo(ZooKeeperLockPaths.encode("a/"));
        assertThat(ZooKeeperLockPaths.encode("é")).isEqualTo("%C3%A9");
        assertThat(ZooKeeperLockPaths.lockPath("/baton/locks", "a/b")).isEqualTo("/baton/locks/a%2Fb");
        assertThat(ZooKeeperLockPaths.encode("v1.2_Z-9")).isEqualTo("v1.2_Z-9");
        assertThat(ZooKeeperLockPaths.encode("..a")).isEqualTo("..a");
        assertThat(ZooKeeperLockPaths.encode("a b")).isEqualTo("a%20b");
        assertThat(ZooKeeperLockPaths.encode("a\u0663")).isEqualTo("a%D9%A3");
    }
}
