package dev.baton.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Leadership;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.servers.DatabaseServer;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Capability;
import dev.baton.tck.KitGroup;
import dev.baton.tck.KitVariant;
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
 *
 * <p>A {@link KitVariant} of {@link PostgresTableLockContractTest}: the same strategy, SQL and
 * server, reached through the application's DataSource instead of a URL. What differs lives in the
 * session layer every operation goes through ({@code JdbcSession}: connections borrowed from and
 * returned to the application's pool, its isolation level restored, a broken connection discarded
 * without an owned pool to evict it from), in the LISTEN connection opened outside that pool, and in
 * {@code close()}, which must leave the pool open. So the groups that run here are those whose
 * clients borrow, wait, get interrupted or close: MutualExclusion (eight threads on one client's
 * pool, three clients), Timeouts and Interrupts (waiters on the LISTEN connection, an interrupted
 * borrow or statement), Fairness (wake-ups across clients), ReadWrite (shared-mode rows and a waiting
 * reader), BadInput (the builder path's option checks, unusual names) and Closing.
 *
 * <p>Left to {@link PostgresTableLockContractTest}, as they add nothing here:
 *
 * <ul>
 *   <li>LossDetection, RenewalAtScale and LeaderElection never use this fixture's DataSource: they
 *       connect through a proxy with {@link LockBackendFixture#uriVia} or from forked JVMs (or a
 *       recording backend) with {@link LockBackendFixture#uri()}, the URL of the table strategy on
 *       PostgreSQL, so here they would repeat that class's run exactly.
 *   <li>Ownership: the killed holder is a forked JVM on the URL (as above); a stranger's unlock is
 *       refused by the core before any SQL.
 *   <li>Renewal, Extend and Semaphores: renewals, extensions and permits are other statements of the
 *       same strategy (the same SQL as in that class) sent through the same session layer that the
 *       groups above exercise; their timing and loss reporting are the core's. Renewal's renewal test
 *       and Semaphores' process tests use the URL too.
 *   <li>Reentrancy and MultiLocks: decided by the core over ordinary acquires and releases.
 *   <li>Operators: the admin connects with the URL; the holder description travels in the request,
 *       built by the core from the options, and is written by that class's SQL.
 * </ul>
 */
@KitVariant(
        of = PostgresTableLockContractTest.class,
        runs = {
            KitGroup.MUTUAL_EXCLUSION,
            KitGroup.TIMEOUTS,
            KitGroup.INTERRUPTS,
            KitGroup.FAIRNESS,
            KitGroup.READ_WRITE,
            KitGroup.BAD_INPUT,
            KitGroup.CLOSING
        })
class PostgresDataSourceContractTest extends LockBackendContract {
    private static DatabaseServer server;
    private static final List<HikariDataSource> pools = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startServer() {
        server = PostgresServer.sharedDatabase();
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
            public String serverState() {
                return DatabaseState.of(server);
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
