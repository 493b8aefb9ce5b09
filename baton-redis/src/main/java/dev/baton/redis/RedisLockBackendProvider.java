package dev.baton.redis;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import java.time.Duration;
import java.util.Set;

/**
 * Serves {@code redis://}, {@code rediss://} (TLS), {@code redis-sentinel://} and {@code
 * redlock://} URIs.
 *
 * <pre>
 * redis://[[user:]password@]host[:port][/database][?prefix=baton:]
 * rediss://...                                         (TLS)
 * redis-sentinel://[[user:]password@]host[:port][,host2[:port2]][/database]#masterName
 * redlock://[[user:]password@]host1:port[/db],host2:port[/db],host3:port[/db]
 *          [?drift=2ms&amp;driftFactor=0.01&amp;nodeTimeout=200ms&amp;tls=true&amp;prefix=baton:]
 * </pre>
 *
 * Backends connect lazily: creating one never blocks.
 */
public final class RedisLockBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redis-sentinel", "redlock");
    }

    @Override
    public LockBackend create(String uri, LockOptions options) {
        if (uri == null || options == null) {
            throw new LockConfigurationException("Baton Redis: the URI and the options must not be null");
        }
        RedisUris.Parsed parsed = RedisUris.split(uri);
        if (parsed.scheme().equals("redlock")) {
            Redlock.Builder builder =
                    Redlock.builder().keyPrefix(parsed.prefix()).options(options);
            boolean tls = Boolean.parseBoolean(parsed.params().getOrDefault("tls", "false"));
            RedisUris.redlockNodes(uri, parsed.lettuceUri(), tls).forEach(builder::node);
            if (parsed.params().containsKey("drift")) {
                builder.driftFixed(
                        RedisUris.duration(uri, "drift", parsed.params().get("drift")));
            }
            if (parsed.params().containsKey("driftfactor")) {
                try {
                    builder.driftFactor(Double.parseDouble(parsed.params().get("driftfactor")));
                } catch (NumberFormatException e) {
                    throw RedisUris.invalid(uri, "driftFactor must be a number such as 0.01");
                }
            }
            if (parsed.params().containsKey("nodetimeout")) {
                builder.nodeTimeout(
                        RedisUris.duration(uri, "nodeTimeout", parsed.params().get("nodetimeout")));
            }
            return builder.buildBackend();
        }
        for (String redlockOnly : new String[] {"drift", "driftfactor", "nodetimeout", "tls"}) {
            if (parsed.params().containsKey(redlockOnly)) {
                throw RedisUris.invalid(
                        uri, "'" + redlockOnly + "' applies to redlock:// URIs only (use rediss:// for TLS)");
            }
        }
        Duration timeout = options.operationTimeout();
        return new RedisLockBackend(
                parsed.scheme(), RedisUris.lettuce(uri, parsed.lettuceUri()), parsed.prefix(), timeout);
    }
}
