package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
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

    /**
     * Curator's {@code InterProcessMutex}, one per name, all taken on the calling thread (the mutex
     * is reentrant per thread); the session (timeout {@code leaseTime}) keeps them; a lock counts as
     * lost when its mutex says this process no longer holds it.
     */
    static LeaseHolder curator(String connect, Duration leaseTime) {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs((int) leaseTime.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        curator.start();
        List<InterProcessMutex> locks = new ArrayList<>();
        return new LeaseHolder() {
            @Override
            public String name() {
                return "curator InterProcessMutex";
            }

            @Override
            public void acquire(List<String> names) {
                for (String lock : names) {
                    InterProcessMutex mutex = new InterProcessMutex(curator, "/curator-held/" + lock);
                    try {
                        if (!mutex.acquire(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("curator: " + lock + " not acquired in 30s");
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException("curator: acquiring " + lock + " failed: " + e, e);
                    }
                    locks.add(mutex);
                }
            }

            @Override
            public long invalid() {
                return locks.stream()
                        .filter(lock -> !lock.isOwnedByCurrentThread())
                        .count();
            }

            @Override
            public void releaseAll() {
                for (InterProcessMutex lock : locks) {
                    try {
                        lock.release();
                    } catch (Exception e) {
                        throw new IllegalStateException("curator: release failed: " + e, e);
                    }
                }
                locks.clear();
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }

    /**
     * jetcd's {@code Lock}: each lock on its own etcd lease (TTL {@code leaseTime}) that jetcd keeps
     * alive, as independent locks need; a lock counts as lost when its lease is gone.
     */
    static LeaseHolder jetcd(String endpoints, Duration leaseTime) {
        io.etcd.jetcd.Client etcd = io.etcd.jetcd.Client.builder()
                .endpoints(java.util.Arrays.stream(endpoints.split(","))
                        .map(e -> "http://" + e.trim())
                        .toArray(String[]::new))
                .build();
        record Held(long lease, CloseableClient keepAlive, ByteSequence key) {}
        List<Held> locks = new ArrayList<>();
        StreamObserver<LeaseKeepAliveResponse> ignore = new StreamObserver<>() {
            @Override
            public void onNext(LeaseKeepAliveResponse value) {}

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        };
        return new LeaseHolder() {
            @Override
            public String name() {
                return "jetcd Lock";
            }

            @Override
            public void acquire(List<String> names) {
                for (String lock : names) {
                    try {
                        long lease = etcd.getLeaseClient()
                                .grant(leaseTime.toSeconds())
                                .get(30, TimeUnit.SECONDS)
                                .getID();
                        CloseableClient keepAlive = etcd.getLeaseClient().keepAlive(lease, ignore);
                        ByteSequence key = etcd.getLockClient()
                                .lock(ByteSequence.from("/jetcd-held/" + lock, StandardCharsets.UTF_8), lease)
                                .get(30, TimeUnit.SECONDS)
                                .getKey();
                        locks.add(new Held(lease, keepAlive, key));
                    } catch (Exception e) {
                        throw new IllegalStateException("jetcd: acquiring " + lock + " failed: " + e, e);
                    }
                }
            }

            @Override
            public long invalid() {
                return locks.stream()
                        .filter(held -> {
                            try {
                                return etcd.getLeaseClient()
                                                .timeToLive(held.lease(), io.etcd.jetcd.options.LeaseOption.DEFAULT)
                                                .get(30, TimeUnit.SECONDS)
                                                .getTTL()
                                        <= 0;
                            } catch (Exception e) {
                                return true;
                            }
                        })
                        .count();
            }

            @Override
            public void releaseAll() {
                for (Held held : locks) {
                    try {
                        etcd.getLockClient().unlock(held.key()).get(30, TimeUnit.SECONDS);
                        held.keepAlive().close();
                        etcd.getLeaseClient().revoke(held.lease()).get(30, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        // A lease that ran out (counted by invalid()) has nothing left to revoke.
                        if (!String.valueOf(e.getCause()).contains("NOT_FOUND")) {
                            throw new IllegalStateException("jetcd: release failed: " + e, e);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException("jetcd: release failed: " + e, e);
                    }
                }
                locks.clear();
            }

            @Override
            public void close() {
                etcd.close();
            }
        };
    }
}
