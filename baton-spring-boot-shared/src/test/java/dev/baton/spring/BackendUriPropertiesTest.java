package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockConfigurationException;
import dev.baton.spi.UriOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The backend property groups ({@code baton.jdbc.*}, ...) name every option the backends' URIs take,
 * as each backend lists them itself when it refuses an unknown one, and become those options in the
 * URI's own syntax.
 */
class BackendUriPropertiesTest {
    private static final Pattern LIST = Pattern.compile("the options are ([A-Za-z, ]+)");
    /** Lettuce's own options, which Baton passes on: in the URI, not Baton's properties. */
    private static final Set<String> LETTUCE =
            Set.of("timeout", "database", "clientName", "libraryName", "libraryVersion", "verifyPeer");

    /** What the backend behind {@code uri} (with an unknown option in it) says it takes. */
    private static Set<String> optionsOf(String uri) {
        try {
            Baton.connect(uri).close();
        } catch (LockConfigurationException e) {
            Matcher matcher = LIST.matcher(e.getMessage());
            assertThat(matcher.find()).as(e.getMessage()).isTrue();
            Set<String> names =
                    new TreeSet<>(Arrays.asList(matcher.group(1).strip().split(", ")));
            names.removeAll(UriOptions.COMMON);
            return names;
        }
        throw new AssertionError(uri + " was accepted");
    }

    private static Set<String> properties(Class<?> group) {
        Set<String> names = new TreeSet<>();
        for (Field field : group.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                names.add(field.getName());
            }
        }
        return names;
    }

    @Test
    void everyJdbcOptionHasAProperty() {
        assertThat(properties(JdbcUriProperties.class)).isEqualTo(optionsOf("jdbc:h2:mem:x;stratgy=table"));
    }

    @Test
    void everyRedisOptionOfEveryRedisSchemeHasAProperty() {
        Set<String> options = new TreeSet<>(optionsOf("redis://h:1?zzzz=1"));
        options.addAll(optionsOf("redis-cluster://h:1,h:2?zzzz=1"));
        options.addAll(optionsOf("redlock://a:1,b:1,c:1?zzzz=1"));
        options.removeAll(LETTUCE);
        assertThat(properties(RedisUriProperties.class)).isEqualTo(options);
    }

    @Test
    void everyZooKeeperEtcdAndAzureOptionHasAProperty() {
        assertThat(properties(ZooKeeperUriProperties.class)).isEqualTo(optionsOf("zookeeper://h:1?zzzz=1"));
        assertThat(properties(EtcdUriProperties.class)).isEqualTo(optionsOf("etcd://h:1?zzzz=1"));
        assertThat(properties(AzureUriProperties.class))
                .isEqualTo(optionsOf("azblob://account1/container?accountKey=a2V5&zzzz=1"));
    }

    @Test
    void theOptionsJoinTheUriInItsOwnSyntax() {
        BatonProperties h2 = new BatonProperties();
        h2.getJdbc().setTable("app_locks");
        h2.getJdbc().setCreateSchema(false);
        assertThat(BackendUriOptions.apply("jdbc:h2:mem:x;MODE=PostgreSQL", h2))
                .isEqualTo("jdbc:h2:mem:x;MODE=PostgreSQL;table=app_locks;createSchema=false");
        assertThat(BackendUriOptions.apply("jdbc:postgresql://db/app", h2))
                .isEqualTo("jdbc:postgresql://db/app?table=app_locks&createSchema=false");

        BatonProperties sentinel = new BatonProperties();
        sentinel.getRedis().setPrefix("app:");
        sentinel.getRedis().setWaitReplicas(1);
        assertThat(BackendUriOptions.apply("redis-sentinel://s1:26379?timeout=2s#mymaster", sentinel))
                .isEqualTo("redis-sentinel://s1:26379?timeout=2s&prefix=app%3A&waitReplicas=1#mymaster");

        BatonProperties zookeeper = new BatonProperties();
        zookeeper.getZookeeper().setSessionTimeout(Duration.ofSeconds(5));
        zookeeper.getZookeeper().setOnSuspended("wait");
        assertThat(BackendUriOptions.apply("zookeeper://zk:2181/app", zookeeper))
                .isEqualTo("zookeeper://zk:2181/app?sessionTimeout=5000ms&onSuspended=wait");
    }

    @Test
    void aGroupForAnotherBackendOrAnOptionGivenTwiceFailsNamingTheProperty() {
        BatonProperties redis = new BatonProperties();
        redis.getRedis().setPrefix("app:");
        assertThatThrownBy(() -> BackendUriOptions.apply("jdbc:h2:mem:x", redis))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessage("Baton: the property baton.redis.prefix is set, but baton.uri is a jdbc:h2 URI, not a"
                        + " redis one; remove the baton.redis.* properties or point baton.uri at redis");
        BatonProperties table = new BatonProperties();
        table.getJdbc().setTable("b");
        assertThatThrownBy(() -> BackendUriOptions.apply("jdbc:h2:mem:x;TABLE=a", table))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessage("Baton: the option table is set both in baton.uri and as the property baton.jdbc.table;"
                        + " keep one");
    }
}
