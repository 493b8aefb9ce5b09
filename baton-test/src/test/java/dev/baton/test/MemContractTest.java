package dev.baton.test;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit on one {@code mem://} namespace, every group and every capability.
 *
 * <p>What "another process" means for a backend that lives in one JVM: the kit's clients in this JVM
 * ({@link LockBackendFixture#connect}) are in-JVM clients of {@code mem://<namespace>}; the kit's
 * children (three processes counting under one lock, a holder killed with SIGKILL, a leader killed or
 * stopped with SIGSTOP), its fault proxy (a cut, a paused and a slow link) and its admin reach the same
 * namespace through {@link MemLockServer} ({@link LockBackendFixture#uri()}). So every property runs
 * as written, none is skipped or declared away: the cross-process ones hold between in-JVM clients and
 * clients of other JVMs on one table, and the in-JVM path is the one the rest of the kit takes.
 */
class MemContractTest extends LockBackendContract {
    private static final String NAMESPACE =
            "tck-" + UUID.randomUUID().toString().substring(0, 8);
    private static MemLockServer server;

    @BeforeAll
    static void serve() {
        server = MemLocks.serve(NAMESPACE);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        MemLocks.forget(NAMESPACE);
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return "mem, in-JVM clients and other JVMs through MemLockServer";
            }

            @Override
            public String uri() {
                return server.uri();
            }

            @Override
            public InetSocketAddress serverAddress() {
                return server.address();
            }

            @Override
            public LockClient connect(LockOptions options) {
                return Baton.connect(MemLocks.uri(NAMESPACE), options);
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR);
            }

            @Override
            public boolean isServerThread(Thread thread) {
                return thread.getName().startsWith("baton-mem-server-");
            }

            @Override
            public String serverState() {
                return MemLocks.namespace(NAMESPACE).describe();
            }
        };
    }
}
