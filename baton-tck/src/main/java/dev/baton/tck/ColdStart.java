package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.Optional;

/**
 * Takes a child JVM's cold start out of the property it runs ({@link ForkedLockClient}, a worker
 * that warms up once per backend URI).
 *
 * <p>A backend client's first call in a fresh JVM loads and compiles its driver (gRPC and Vert.x for
 * etcd, Netty for Redis and ZooKeeper, a JDBC driver) and opens its connection, which takes far
 * longer than the calls after it and, with several children starting together on a busy machine,
 * can outlast the operation timeout. The properties the children take part in
 * (mutual exclusion, ownership, leadership) are not about timeouts, so each child first warms up
 * with a client of its own whose operation timeout covers a cold start ({@link #BOUND}), closes it,
 * and only then connects the client under test, with the bounds of the property.
 */
final class ColdStart {
    /** Bound on a cold JVM's first backend call: class loading and JIT on a starved machine. */
    static final Duration BOUND = KitTime.COLD_START;

    private ColdStart() {}

    /**
     * One acquire and release on a name of this process's own, through a client closed afterwards.
     *
     * @param uri the backend under test
     * @param leaseTime the lease time the child will use (a backend may refuse shorter ones)
     */
    static void warmUp(String uri, Duration leaseTime) {
        LockOptions options = LockOptions.builder()
                .leaseTime(leaseTime)
                .operationTimeout(BOUND)
                .build();
        try (LockClient client = Baton.connect(uri, options)) {
            String name = "tck-warm-up-" + ProcessHandle.current().pid();
            Optional<Lease> lease = client.lock(name).tryAcquire();
            lease.ifPresent(Lease::close);
        }
    }
}
