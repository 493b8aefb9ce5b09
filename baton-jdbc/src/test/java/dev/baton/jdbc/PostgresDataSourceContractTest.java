package dev.baton.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Leadership;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on the table strategy built with {@link JdbcLocks} from an application's own
 * HikariCP pool, as applications with a pool use it. Each client gets its own pool, which the
 * client must leave open; the test closes the pools at the end.
 */
class PostgresDataSourceContractTest extends LockBackendContract {
    private static PostgresServer server;
    private static final List<HikariDataSource> pools = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startServer() {
        server = PostgresServer.start();
    }

    @AfterAll
    static void stopServer() {
        pools.forEach(HikariDataSource::close);
        server.close();
    }

    /** The application closes its pool after the lock client, which must have left it open. */
    private record ClientWithApplicationPool(LockClient client, HikariDataSource pool) implements LockClient {
        @Override
        public DistributedLock lock(String name) {
            return client.lock(name);
        }

        @Override
        public DistributedLock lock(String name, LockOptions options) {
            return client.lock(name, options);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name) {
            return client.readWriteLock(name);
        }

        @Override
        public DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
            return client.readWriteLock(name, options);
        }

        @Override
        public DistributedSemaphore semaphore(String name, int permits) {
            return client.semaphore(name, permits);
        }

        @Override
        public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
            return client.semaphore(name, permits, options);
        }

        @Override
        public DistributedLock multiLock(String... names) {
            return client.multiLock(names);
        }

        @Override
        public DistributedLock multiLock(java.util.Collection<String> names, LockOptions options) {
            return client.multiLock(names, options);
        }

        @Override
        public Leadership leadership(String name) {
            return client.leadership(name);
        }

        @Override
        public Leadership leadership(String name, LockOptions options) {
            return client.leadership(name, options);
        }

        @Override
        public LockOptions options() {
            return client.options();
        }

        @Override
        public String backendName() {
            return client.backendName();
        }

        @Override
        public void close() {
            client.close();
            if (pool.isClosed()) {
                throw new AssertionError("the lock client closed the application's pool");
            }
            pool.close();
        }
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "jdbc-table on PostgreSQL through an application's HikariCP pool";
            }

            @Override
            public String uri() {
                return JdbcFixtures.uri(server, null);
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(server.host(), server.port());
            }

            @Override
            public LockClient connect(LockOptions options) {
                HikariDataSource pool = new HikariDataSource();
                pool.setJdbcUrl(server.jdbcUrl());
                pool.setUsername(server.user());
                pool.setPassword(server.password());
                pool.setMaximumPoolSize(10);
                pool.setConnectionTimeout(options.operationTimeout().toMillis());
                pool.setMinimumIdle(0);
                pools.add(pool);
                return new ClientWithApplicationPool(
                        JdbcLocks.builder(pool).options(options).build(), pool);
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }
        };
    }
}
