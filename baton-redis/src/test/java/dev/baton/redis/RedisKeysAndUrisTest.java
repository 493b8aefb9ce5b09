package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.internal.HostAndPort;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RedisKeysAndUrisTest {
    private final RedisKeys keys = new RedisKeys("baton:");

    @Test
    void aLocksKeysAndChannelShareOneHashSlotWhateverTheName() {
        for (String name : List.of("plain", "{tag}", "a}b{c", "}{", "%7B", "ключ", "x".repeat(512))) {
            String[] all = keys.keys(name);
            int slot = SlotHash.getSlot(all[0]);
            assertThat(SlotHash.getSlot(all[1])).isEqualTo(slot);
            assertThat(SlotHash.getSlot(all[2])).isEqualTo(slot);
            assertThat(SlotHash.getSlot(keys.channel(name))).isEqualTo(slot);
            assertThat(all[0]).startsWith("baton:{").endsWith("}:lock");
        }
    }

    @Test
    void namesThatLookAlikeGetDifferentKeys() {
        Set<String> seen = new HashSet<>();
        for (String name : List.of("{a}", "%7Ba%7D", "%257Ba%257D", "a", "{a", "a}", "%")) {
            assertThat(seen.add(keys.keys(name)[0]))
                    .as("unique key for %s", name)
                    .isTrue();
        }
        assertThat(RedisKeys.encode("{x}")).isEqualTo("%7Bx%7D");
        assertThat(RedisKeys.encode("100%")).isEqualTo("100%25");
    }

    /** The user and password a URI authenticates with (Lettuce 7 keeps them behind a credentials provider). */
    private static RedisCredentials credentials(RedisURI uri) {
        return uri.getCredentialsProvider().resolveCredentials().block();
    }

    @Test
    void urisKeepBatonParametersAwayFromLettuce() {
        RedisUris.Parsed parsed = RedisUris.split("redis://user:pw@h:1/2?prefix=app:&timeout=3s");
        assertThat(parsed.prefix()).isEqualTo("app:");
        RedisURI uri = RedisUris.lettuce("x", parsed.lettuceUri());
        assertThat(credentials(uri).getUsername()).isEqualTo("user");
        assertThat(new String(credentials(uri).getPassword())).isEqualTo("pw");
        assertThat(uri.getDatabase()).isEqualTo(2);

        RedisURI sentinel = RedisUris.lettuce(
                "x",
                RedisUris.split("redis-sentinel://s1:26379,s2:26380/1#mymaster").lettuceUri());
        assertThat(sentinel.getSentinels()).hasSize(2);
        assertThat(sentinel.getSentinelMasterId()).isEqualTo("mymaster");

        List<RedisURI> nodes = RedisUris.redlockNodes("x", "redlock://:pw@a:1,b:2/3,c", true);
        assertThat(nodes).extracting(RedisURI::getHost).containsExactly("a", "b", "c");
        assertThat(nodes).extracting(RedisURI::getPort).containsExactly(1, 2, 6379);
        assertThat(nodes).extracting(RedisURI::getDatabase).containsExactly(0, 3, 0);
        assertThat(nodes).allMatch(RedisURI::isSsl);
    }

    @Test
    void clusterUrisNameSeedsAndOptions() {
        RedisUris.Parsed parsed =
                RedisUris.split("redis-cluster://app:p%40ss@n1:7000,n2:7001,n3/?prefix=app:&topologyRefresh=10s"
                        + "&natMap=10.0.0.1:7000%3Egw:17000,10.0.0.2:7000>gw:17001");
        assertThat(parsed.scheme()).isEqualTo("redis-cluster");
        assertThat(parsed.prefix()).isEqualTo("app:");
        List<RedisURI> seeds = RedisUris.clusterSeeds("x", parsed.lettuceUri(), false);
        assertThat(seeds).extracting(RedisURI::getHost).containsExactly("n1", "n2", "n3");
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, 7001, 6379);
        assertThat(seeds).allSatisfy(seed -> {
            assertThat(credentials(seed).getUsername()).isEqualTo("app");
            assertThat(new String(credentials(seed).getPassword())).isEqualTo("p@ss");
            assertThat(seed.isSsl()).isFalse();
        });
        assertThat(RedisUris.duration("x", "topologyRefresh", parsed.params().get("topologyrefresh")))
                .isEqualTo(java.time.Duration.ofSeconds(10));
        assertThat(RedisUris.natMap("x", parsed.params().get("natmap")))
                .containsEntry(HostAndPort.of("10.0.0.1", 7000), HostAndPort.of("gw", 17000))
                .containsEntry(HostAndPort.of("10.0.0.2", 7000), HostAndPort.of("gw", 17001));

        List<RedisURI> tls = RedisUris.clusterSeeds(
                "x", RedisUris.split("rediss-cluster://:pw@h:1,h:2").lettuceUri(), true);
        assertThat(tls).allMatch(RedisURI::isSsl);
        assertThat(new String(credentials(tls.get(1)).getPassword())).isEqualTo("pw");
        assertThat(RedisUris.clusterSeeds("x", "redis-cluster://h:1/0", false)).hasSize(1);
    }

    @Test
    void badClusterUrisFailAtOnceWithoutLeakingThePassword() {
        LockOptions options = LockOptions.defaults();
        assertThatThrownBy(() -> Baton.connect("redis-cluster://:secret@h:1,h:2/3", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("only database 0")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("no seed");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:port", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("port");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1?timeout=2s", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("timeout=2s")
                .hasMessageContaining("natMap");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1?natMap=h:1", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("announcedHost:port>reachableHost:port");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1?natMap=h:1>g:x", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("numeric port");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1?topologyRefresh=0", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("topologyRefresh");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1?tls=true", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("rediss-cluster://");
        assertThatThrownBy(() -> Baton.connect("redis://h:1?natMap=h:1>g:2", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redis-cluster://");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1?prefix=x{y}", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("braces");
    }

    @Test
    void waitReplicasIsAWholeNumberForSingleSentinelAndClusterUris() {
        LockOptions options = LockOptions.defaults();
        assertThat(RedisUris.waitReplicas(
                        "x", RedisUris.split("redis://h:1?waitReplicas=2").params(), 0))
                .isEqualTo(2);
        assertThat(RedisUris.waitReplicas(
                        "x",
                        RedisUris.split("redis-sentinel://s:1?WAITREPLICAS=1#m").params(),
                        RedisReplicaWait.AUTO))
                .isEqualTo(1);
        assertThat(RedisUris.waitReplicas("x", RedisUris.split("redis://h:1").params(), 0))
                .isZero();
        assertThat(RedisUris.waitReplicas(
                        "x",
                        RedisUris.split("redis-sentinel://s:1?waitReplicas=0#m").params(),
                        RedisReplicaWait.AUTO))
                .as("the opt-out")
                .isZero();
        assertThat(RedisNode.connectedReplicas("# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=x\r\n"))
                .isEqualTo(2);
        assertThat(RedisNode.connectedReplicas("# Replication\r\nrole:slave\r\n"))
                .isZero();
        Baton.connect("redis-sentinel://s:1?waitReplicas=1&timeout=2s#m", options)
                .close();
        for (String bad : List.of("-1", "abc", "", "1.5")) {
            assertThatThrownBy(() -> Baton.connect("redis://:secret@h:1?waitReplicas=" + bad, options))
                    .as("waitReplicas=%s", bad)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("waitReplicas='" + bad + "' is not a number of replicas")
                    .hasMessageContaining("0 or more")
                    .hasMessageNotContaining("secret");
        }
        // Cluster URIs take it too (issue #25): a grant waits on its slot's master.
        assertThat(RedisUris.waitReplicas(
                        "x",
                        RedisUris.split("redis-cluster://h:1,h:2?waitReplicas=2")
                                .params(),
                        RedisReplicaWait.AUTO))
                .isEqualTo(2);
        Baton.connect("redis-cluster://h:1,h:2?waitReplicas=1", options).close();
        Baton.connect("redis-cluster://h:1,h:2?waitReplicas=0&topologyRefresh=10s", options)
                .close();
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1,h:2?waitReplicas=x", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("waitReplicas='x' is not a number of replicas");
        assertThatThrownBy(() -> Baton.connect("redlock://a:1,b:2,c:3?waitReplicas=1", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("waitReplicas does not apply to Redlock")
                .hasMessageContaining("majority");
        assertThatThrownBy(() -> Redlock.builder().node("redis://a:1?waitReplicas=1"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("waitReplicas does not apply to Redlock");
    }

    @Test
    void unknownOptionsAreRefusedInsteadOfIgnored() {
        LockOptions options = LockOptions.defaults();
        assertThatThrownBy(() -> Baton.connect("redis://h:1?replicas=1", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redis:// URIs: unknown option 'replicas'")
                .hasMessageContaining("use waitReplicas=N");
        assertThatThrownBy(() -> Baton.connect("redis-sentinel://s:1?prefx=app:#m", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redis-sentinel:// URIs: unknown option 'prefx' (did you mean 'prefix'?)");
        assertThatThrownBy(() -> Baton.connect("redlock://a:1,b:2,c:3?drfit=2ms", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redlock:// URIs: unknown option 'drfit' (did you mean 'drift'?)");
        assertThatThrownBy(() -> Baton.connect("redis-cluster://h:1,h:2?natmpa=a:1>b:2", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redis-cluster:// URIs: unknown option 'natmpa' (did you mean 'natMap'?)");
        assertThatThrownBy(() -> Baton.connect("redis://h:1?leaseTime=10s", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("LockOptions.builder().leaseTime(...)");
        Baton.connect("redis://h:1/0?timeout=2s&clientName=app&database=1&verifyPeer=NONE", options)
                .close();
    }

    @Test
    void badUrisFailAtOnceWithoutLeakingThePassword() {
        LockOptions options = LockOptions.defaults();
        assertThatThrownBy(() -> Baton.connect("redlock://:secret@a:1,b:2", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("at least 3")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> Baton.connect("redis-sentinel://s1:26379", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("#");
        assertThatThrownBy(() -> Baton.connect("redis://h:1?prefix=a{b", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("braces");
        assertThatThrownBy(() -> Baton.connect("redis://h:1?nodeTimeout=5ms", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redlock");
        assertThatThrownBy(() -> Baton.connect("redlock://a:1,b:2,c:3?nodeTimeout=soon", options))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("nodeTimeout");
    }
}
