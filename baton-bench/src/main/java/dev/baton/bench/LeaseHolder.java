package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** One client holding many leases at once, for {@link LeaseScaleBench}. */
interface LeaseHolder extends AutoCloseable {

    String name();

    /** Takes every lock in {@code names}, one after another, and keeps them. */
    void acquire(List<String> names);

    /** How many of the held leases are no longer valid (lost, or expired on the server). */
    long invalid();

    /** Releases everything still held. */
    void releaseAll();

    /** Renewal calls this client made so far (one round trip each), or -1 if it cannot tell. */
    default long renewalCalls() {
        return -1;
    }

    @Override
    void close();

    /**
     * Baton: the leases renew themselves; loss is read from the lease ({@code isValid}); renewal
     * calls are counted on the backend ({@link CountingBackend}).
     */
    static LeaseHolder baton(String name, String uri, Duration leaseTime) {
        LockOptions options = LockOptions.builder().leaseTime(leaseTime).build();
        CountingBackend backend = new CountingBackend(Baton.backend(uri, options));
        LockClient client = Baton.open(backend, options);
        List<Lease> leases = new ArrayList<>();
        return new LeaseHolder() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void acquire(List<String> names) {
                for (String lock : names) {
                    leases.add(client.lock(lock).acquire(Duration.ofSeconds(30)));
                }
            }

            @Override
            public long invalid() {
                return leases.stream().filter(lease -> !lease.isValid()).count();
            }

            @Override
            public long renewalCalls() {
                return backend.renewalCalls();
            }

            @Override
            public void releaseAll() {
                leases.forEach(Lease::close);
                leases.clear();
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /**
     * Redisson's {@code RLock} with its watchdog (lock() without a lease time, watchdog timeout set
     * to {@code leaseTime}); a lock counts as lost when the server no longer has it for this thread.
     * Everything runs on the calling thread (Redisson ties a lock to its thread).
     */
    static LeaseHolder redisson(String uri, Duration leaseTime) {
        Config config = new Config();
        config.setLockWatchdogTimeout(leaseTime.toMillis());
        config.useSingleServer().setAddress(uri);
        RedissonClient redisson = Redisson.create(config);
        List<RLock> locks = new ArrayList<>();
        return new LeaseHolder() {
            @Override
            public String name() {
                return "redisson RLock";
            }

            @Override
            public void acquire(List<String> names) {
                for (String lock : names) {
                    RLock rlock = redisson.getLock(lock);
                    rlock.lock();
                    locks.add(rlock);
                }
            }

            @Override
            public long invalid() {
                return locks.stream()
                        .filter(lock -> !lock.isHeldByCurrentThread())
                        .count();
            }

            @Override
            public void releaseAll() {
                for (RLock lock : locks) {
                    if (lock.isHeldByCurrentThread()) {
                        lock.unlock();
                    }
                }
                locks.clear();
            }

            @Override
            public void close() {
                redisson.shutdown();
            }
        };
    }
}
