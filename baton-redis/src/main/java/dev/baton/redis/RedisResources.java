package dev.baton.redis;

import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DnsResolvers;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Lettuce's threads for one backend: few, daemon, and stopped when the backend closes. */
final class RedisResources {
    private static final Logger log = LoggerFactory.getLogger(RedisResources.class);

    private RedisResources() {}

    static ClientResources create() {
        return create(Map.of());
    }

    /**
     * @param natMap announced address to reachable address; connections to a mapped address go to
     *     its target instead (Redis Cluster nodes behind NAT or port forwarding announce addresses
     *     the client cannot reach)
     */
    static ClientResources create(Map<HostAndPort, HostAndPort> natMap) {
        DefaultClientResources.Builder builder = DefaultClientResources.builder();
        if (!natMap.isEmpty()) {
            Map<HostAndPort, HostAndPort> mapping = Map.copyOf(natMap);
            builder.socketAddressResolver(MappingSocketAddressResolver.create(
                    DnsResolvers.UNRESOLVED, announced -> mapping.getOrDefault(announced, announced)));
        }
        return builder.ioThreadPoolSize(2)
                .computationThreadPoolSize(1)
                // Capped so that a client finds a server that came back within a second, well inside
                // one operation timeout; the default grows to 30 s.
                .reconnectDelay(
                        Delay.exponential(Duration.ofMillis(5), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS))
                .threadFactoryProvider(pool -> new DefaultThreadFactory("baton-redis-" + pool, true))
                .build();
    }

    static void shutdown(ClientResources resources) {
        try {
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("Lettuce resources did not shut down cleanly: {}", e.toString());
        }
    }
}
