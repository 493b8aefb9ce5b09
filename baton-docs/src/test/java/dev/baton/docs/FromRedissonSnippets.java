package dev.baton.docs;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The side-by-side code of docs/migration/from-redisson.md: Redisson first, then Baton. */
class FromRedissonSnippets {
    interface Store {
        void write(String data, long fencingToken);
    }

    static RedissonClient redissonClient() {
        // snippet:start redisson-client
        Config config = new Config();
        config.useSingleServer().setAddress("redis://cache:6379");
        RedissonClient redisson = Redisson.create(config);
        // snippet:end redisson-client
        return redisson;
    }

    static LockClient batonClient() {
        // snippet:start baton-client
        LockClient client = Baton.connect("redis://cache:6379");
        // snippet:end baton-client
        return client;
    }

    static void redissonWatchdog(RedissonClient redisson, Runnable work) throws InterruptedException {
        // snippet:start redisson-lock
        RLock lock = redisson.getLock("invoice-42");
        if (lock.tryLock(5, TimeUnit.SECONDS)) { // the watchdog renews it every 10 s (lockWatchdogTimeout / 3)
            try {
                work.run();
            } finally {
                lock.unlock(); // by the thread that locked it
            }
        }
        // snippet:end redisson-lock
    }

    static void batonRenewed(LockClient client, Runnable work) {
        // snippet:start baton-lock
        DistributedLock lock = client.lock("invoice-42");
        try (Lease lease = lock.acquire(Duration.ofSeconds(5))) { // renewed every 10 s (leaseTime 30 s / 3)
            work.run();
        } // any thread may close a lease
        // snippet:end baton-lock
    }

    static void redissonLeaseTime(RedissonClient redisson, Runnable work) throws InterruptedException {
        // snippet:start redisson-lease-time
        RLock lock = redisson.getLock("nightly-report");
        if (lock.tryLock(0, 10, TimeUnit.MINUTES)) { // leaseTime given: no watchdog, expires after 10 min
            try {
                work.run();
            } finally {
                lock.unlock();
            }
        }
        // snippet:end redisson-lease-time
    }

    static void batonLeaseTime(LockClient client, Runnable work) {
        // snippet:start baton-lease-time
        LockOptions tenMinutes = LockOptions.builder()
                .leaseTime(Duration.ofMinutes(10))
                .autoRenew(false)
                .build();
        Optional<Lease> maybe = client.lock("nightly-report", tenMinutes).tryAcquire();
        maybe.ifPresent(lease -> {
            try (lease) {
                work.run();
            }
        });
        // snippet:end baton-lease-time
    }

    static void redissonFenced(RedissonClient redisson, Store store, String data) throws InterruptedException {
        // snippet:start redisson-fenced
        RFencedLock lock = redisson.getFencedLock("invoice-42");
        Long token = lock.tryLockAndGetToken(5, TimeUnit.SECONDS); // null when not acquired
        if (token != null) {
            try {
                store.write(data, token);
            } finally {
                lock.unlock();
            }
        }
        // snippet:end redisson-fenced
    }

    static void batonFenced(LockClient client, Store store, String data) {
        // snippet:start baton-fenced
        try (Lease lease = client.lock("invoice-42").acquire(Duration.ofSeconds(5))) {
            store.write(data, lease.fencingToken()); // every lease has one, on every backend
        }
        // snippet:end baton-fenced
    }

    static void redissonSemaphore(RedissonClient redisson, Runnable export) throws InterruptedException {
        // snippet:start redisson-semaphore
        RPermitExpirableSemaphore exports = redisson.getPermitExpirableSemaphore("exports");
        exports.trySetPermits(4);
        String permit = exports.tryAcquire(30, 60, TimeUnit.SECONDS); // wait 30 s, permit lives 60 s
        if (permit != null) {
            try {
                export.run();
            } finally {
                exports.release(permit);
            }
        }
        // snippet:end redisson-semaphore
    }

    static void batonSemaphore(LockClient client, Runnable export) {
        // snippet:start baton-semaphore
        DistributedSemaphore exports = client.semaphore("exports", 4); // every client gives the same count
        try (Lease permit = exports.acquire(Duration.ofSeconds(30))) { // renewed while held, freed if its holder dies
            export.run();
        }
        // snippet:end baton-semaphore
    }
}
