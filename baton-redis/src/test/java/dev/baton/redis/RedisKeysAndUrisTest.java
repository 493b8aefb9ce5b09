package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
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

    @Test
    void urisKeepBatonParametersAwayFromLettuce() {
        RedisUris.Parsed parsed = RedisUris.split("redis://user:pw@h:1/2?prefix=app:&timeout=3s");
        assertThat(parsed.prefix()).isEqualTo("app:");
        RedisURI uri = RedisUris.lettuce("x", parsed.lettuceUri());
        assertThat(uri.getUsername()).isEqualTo("user");
        assertThat(new String(uri.getPassword())).isEqualTo("pw");
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
