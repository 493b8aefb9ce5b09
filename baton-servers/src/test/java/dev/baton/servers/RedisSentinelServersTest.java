package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RedisSentinelServersTest {

    private static Object role(RedisServer node) {
        return ((List<?>) Resp.call(node.port(), "ROLE")).get(0);
    }

    @Test
    void killingTheMasterPromotesAReplicaThatHasTheReplicatedWrites() {
        try (RedisSentinelServers servers = RedisSentinelServers.startWithReplicas(2)) {
            RedisServer first = servers.master();
            List<RedisServer> replicas = servers.replicas();
            assertThat(replicas).hasSize(2).doesNotContain(first);
            assertThat(servers.nodes()).containsExactly(first, replicas.get(0), replicas.get(1));
            assertThat(servers.currentMaster()).isSameAs(first);
            assertThat(role(first)).isEqualTo("master");
            assertThat(replicas).allSatisfy(replica -> assertThat(role(replica)).isEqualTo("slave"));
            assertThat(Resp.calls(first.port(), List.of(List.of("SET", "k", "v"), List.of("WAIT", "2", "5000"))))
                    .as("the write reached both replicas")
                    .containsExactly("OK", 2L);

            RedisServer promoted = servers.killMasterAndAwaitFailover();

            assertThat(first.isRunning()).isFalse();
            assertThat(replicas).contains(promoted);
            assertThat(servers.master()).isSameAs(promoted);
            assertThat(servers.currentMaster()).isSameAs(promoted);
            assertThat(servers.replicas()).contains(first).doesNotContain(promoted);
            assertThat(role(promoted)).isEqualTo("master");
            assertThat(Resp.call(promoted.port(), "GET", "k")).isEqualTo("v");
            assertThat(Resp.call(promoted.port(), "SET", "after", "failover")).isEqualTo("OK");
        }
    }

    @Test
    void withoutReplicasNoFailoverHappensAndTheWaitSaysSo() {
        try (RedisSentinelServers servers = RedisSentinelServers.start()) {
            RedisServer first = servers.master();
            assertThat(servers.replicas()).isEmpty();
            assertThat(servers.uri("prefix=app:"))
                    .isEqualTo(
                            "redis-sentinel://127.0.0.1:" + servers.sentinel().port() + "?prefix=app:#baton-master");
            assertThatThrownBy(() -> servers.killMasterAndAwaitFailover(Duration.ofMillis(1500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("timed out after 1500 ms")
                    .hasMessageContaining("promote a replica in place of the master on port " + first.port())
                    .hasMessageContaining("the Sentinel names [127.0.0.1, " + first.port() + "]");
            assertThat(servers.master()).isSameAs(first);
        }
    }

    @Test
    void startWithReplicasRefusesANegativeCount() {
        assertThatThrownBy(() -> RedisSentinelServers.startWithReplicas(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }
}
