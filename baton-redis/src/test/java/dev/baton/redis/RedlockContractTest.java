package dev.baton.redis;

import dev.baton.servers.RedisServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on Redlock over five independent masters. The kit's fault-injecting proxy
 * fronts a single address, so the proxy tests run Redlock over three logical masters that all sit
 * behind it (three databases of the first server): cutting the proxy then cuts a majority.
 */
class RedlockContractTest extends LockBackendContract {
    private static List<RedisServer> masters;

    @BeforeAll
    static void startServers() {
        masters = RedisServer.startMasters(5);
    }

    @AfterAll
    static void stopServers() {
        masters.forEach(RedisServer::close);
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "redlock on 5 masters";
            }

            @Override
            public String uri() {
                return "redlock://"
                        + masters.stream().map(m -> m.host() + ":" + m.port()).collect(Collectors.joining(","));
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(
                        masters.get(0).host(), masters.get(0).port());
            }

            @Override
            public String uriVia(InetSocketAddress address) {
                String node = address.getHostString() + ":" + address.getPort();
                return "redlock://" + node + "/0," + node + "/1," + node + "/2";
            }

            /**
             * No {@link Capability#SEMAPHORES}: a majority of masters does not bound the holders of
             * more than one permit, so Redlock refuses semaphores (see {@link
             * RedlockBackend#supportsPermits()}); the kit checks that refusal.
             */
            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.FAIR);
            }
        };
    }
}
