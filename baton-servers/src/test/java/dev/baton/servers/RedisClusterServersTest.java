package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(90)
class RedisClusterServersTest {

    @Test
    void aKilledMasterIsReplacedByItsReplicaAndRejoinsAsAReplicaWhenRestartedTwiceOver() {
        try (RedisClusterServers cluster = RedisClusterServers.startWithReplicas(3, 2, Duration.ofSeconds(1))) {
            assertThat(cluster.nodes()).hasSize(9);
            assertThat(cluster.currentMasters()).containsExactlyElementsOf(cluster.masters());
            RedisServer first = cluster.masters().get(0);
            List<RedisServer> itsReplicas = cluster.currentReplicasOf(first);
            assertThat(itsReplicas).containsExactlyElementsOf(cluster.replicas().subList(0, 2));
            // "{a}" hashes to slot 15495 (master 2); "{b}" to 3300 (master 0)
            assertThat(Resp.calls(first.port(), List.of(List.of("SET", "{b}k", "v"), List.of("WAIT", "2", "5000"))))
                    .as("the write reached both replicas")
                    .containsExactly("OK", 2L);
            assertThat(cluster.countKeys(first, "{b}*")).isEqualTo(1);

            first.kill();
            RedisServer promoted = cluster.awaitFailover(first, itsReplicas, Duration.ofSeconds(30));

            assertThat(itsReplicas).contains(promoted);
            assertThat(cluster.currentMasters()).contains(promoted).doesNotContain(first);
            assertThat(Resp.call(promoted.port(), "GET", "{b}k")).isEqualTo("v");

            first.restart();
            cluster.awaitRejoined(first, Duration.ofSeconds(30));

            assertThat(cluster.currentReplicasOf(promoted)).contains(first);
            assertThat(cluster.currentMasters()).doesNotContain(first).hasSize(3);
            assertThat(Resp.call(first.port(), "READONLY")).isEqualTo("OK");
            assertThat(Resp.calls(first.port(), List.of(List.of("READONLY"), List.of("GET", "{b}k"))))
                    .as("synchronised from the new master")
                    .containsExactly("OK", "v");

            // again, on the cluster as the first failover left it: the rejoined node is a candidate now
            List<RedisServer> next = cluster.currentReplicasOf(promoted);
            assertThat(next).hasSize(2).contains(first);
            promoted.kill();
            RedisServer again = cluster.awaitFailover(promoted, next, Duration.ofSeconds(30));
            promoted.restart();
            cluster.awaitRejoined(promoted, Duration.ofSeconds(30));
            assertThat(cluster.currentReplicasOf(again)).hasSize(2).contains(promoted);
            assertThat(Resp.call(again.port(), "GET", "{b}k")).isEqualTo("v");
        }
    }
}
