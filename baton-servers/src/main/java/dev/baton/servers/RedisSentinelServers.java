package dev.baton.servers;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

/**
 * A Redis master watched by one Sentinel, both embedded (see {@link RedisServer}), for testing
 * clients that find the master through Sentinel ({@code redis-sentinel://} URIs).
 *
 * <p>Guarantees: once {@link #start()} returns, the master answers and the Sentinel answers and
 * monitors it under the name {@link #MASTER_NAME}. One Sentinel with quorum 1 is enough to find
 * the master; it is not a highly available set-up. {@link #close()} stops both and deletes their
 * directories. Failure behaviour as {@link RedisServer}.
 */
public final class RedisSentinelServers implements AutoCloseable {
    /** The name the Sentinel monitors the master under. */
    public static final String MASTER_NAME = "baton-master";

    private final RedisServer master;
    private final RedisServer sentinel;

    private RedisSentinelServers(RedisServer master, RedisServer sentinel) {
        this.master = master;
        this.sentinel = sentinel;
    }

    /** Starts a master, then a Sentinel that monitors it. */
    public static RedisSentinelServers start() {
        RedisServer master = RedisServer.startEmbedded();
        try {
            RedisServer sentinel = RedisServer.launch(
                    FreePort::find,
                    List.of("--sentinel"),
                    (dir, port) -> Files.writeString(
                            dir.resolve("sentinel.conf"),
                            "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 1\n"
                                    + "sentinel down-after-milliseconds " + MASTER_NAME + " 2000\n",
                            StandardCharsets.UTF_8));
            return new RedisSentinelServers(master, sentinel);
        } catch (RuntimeException e) {
            master.close();
            throw e;
        }
    }

    /** {@return the monitored master} */
    public RedisServer master() {
        return master;
    }

    /** {@return the Sentinel process} */
    public RedisServer sentinel() {
        return sentinel;
    }

    /** {@return a URI that finds the master through the Sentinel, e.g. {@code redis-sentinel://127.0.0.1:26379#baton-master}} */
    public String uri() {
        return "redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#" + MASTER_NAME;
    }

    @Override
    public void close() {
        sentinel.close();
        master.close();
    }
}
