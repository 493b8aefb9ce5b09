package dev.baton.docs;

import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import dev.baton.jdbc.Fencing;
import dev.baton.redis.RedisFencing;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The snippets of docs/concepts.md; ConceptsSnippetsTest runs the JDBC ones on H2. */
class ConceptsSnippets {
    private static final Logger log = LoggerFactory.getLogger(ConceptsSnippets.class);

    // snippet:start fenced-table
    static final Fencing.Table INVOICES = new Fencing.Table("invoices", "id", "fencing_token");
    // snippet:end fenced-table

    /** Whether the write went through: false when a newer holder had written first. */
    static boolean payInvoice(LockClient client, DataSource dataSource, long invoiceId, Instant paidAt)
            throws SQLException {
        // snippet:start fenced-write-jdbc
        try (Lease lease = client.lock("invoice-" + invoiceId).acquire(Duration.ofSeconds(5));
                Connection connection = dataSource.getConnection()) {
            boolean written = Fencing.guardedUpdate(
                    connection, INVOICES, invoiceId, lease.fencingToken(), Map.of("status", "paid", "paid_at", paidAt));
            if (!written) {
                return false; // the row has seen a higher token: a newer holder exists, stop acting on this lease
            }
        }
        // snippet:end fenced-write-jdbc
        return true;
    }

    static boolean saveInvoice(LockClient client, StatefulRedisConnection<String, String> redis, String json) {
        // snippet:start fenced-write-redis
        try (Lease lease = client.lock("invoice-42").acquire(Duration.ofSeconds(5))) {
            if (!RedisFencing.guardedSet(redis.sync(), "invoice:42", json, lease.fencingToken())) {
                return false; // a newer holder has written: stop acting on this lease
            }
        }
        // snippet:end fenced-write-redis
        return true;
    }

    static void longJob(LockClient client, Iterable<Runnable> steps) {
        // snippet:start loss
        try (Lease lease = client.lock("reindex").acquire(Duration.ofSeconds(5))) {
            lease.onLost(lost -> log.warn("lost the reindex lock: {}", lost.getMessage())); // on a Baton thread
            for (Runnable step : steps) {
                lease.checkValid(); // throws LockLostException once the lease is gone
                step.run();
            }
        } catch (LockLostException e) {
            // the job stops half way; the next holder starts from what was written with a valid token
        }
        // snippet:end loss
    }

    static void lockView(LockClient client, Runnable work) {
        // snippet:start lock-view
        DistributedLock lock = client.lock("invoice-42");
        lock.lock(); // java.util.concurrent.locks.Lock: blocks until held
        try {
            work.run();
        } finally {
            lock.unlock(); // by the same thread, as the JDK's locks
        }
        // snippet:end lock-view
    }

    static int reentrancy(LockClient client) {
        // snippet:start reentrancy
        DistributedLock lock = client.lock("invoice-42");
        try (Lease outer = lock.acquire(Duration.ofSeconds(5))) {
            try (Lease inner = lock.acquire(Duration.ofSeconds(5))) { // same thread: no round trip
                assert inner.fencingToken() == outer.fencingToken() && lock.holdCount() == 2;
            }
            assert lock.holdCount() == 1; // still held: only the last close releases on the backend
        }
        // snippet:end reentrancy
        return lock.holdCount();
    }

    static boolean tryOnce(LockClient client, Runnable work) {
        // snippet:start try-acquire
        Optional<Lease> maybe = client.lock("nightly-report").tryAcquire(); // one attempt, no waiting
        if (maybe.isEmpty()) {
            return false; // someone else holds it
        }
        try (Lease lease = maybe.get()) {
            work.run();
        }
        // snippet:end try-acquire
        return true;
    }

    static DistributedLock options(LockClient client) {
        // snippet:start options
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(10)) // kept 10 s past a crash; renewed every 3.3 s while held
                .operationTimeout(Duration.ofSeconds(2)) // bound on each round trip to the backend
                .clientName("billing") // shown by `baton locks` beside host, pid and thread
                .build();
        DistributedLock report = client.lock("nightly-report", options); // this lock only
        // snippet:end options
        return report;
    }

    static void extend(LockClient client, Runnable firstHalf, Runnable secondHalf) {
        // snippet:start extend
        LockOptions manual = LockOptions.builder()
                .leaseTime(Duration.ofMinutes(5))
                .autoRenew(false)
                .build();
        try (Lease lease = client.lock("export", manual).acquire(Duration.ofSeconds(5))) {
            firstHalf.run();
            lease.extend(Duration.ofMinutes(5)); // expires 5 min from now, not 5 min later than before
            secondHalf.run();
        }
        // snippet:end extend
    }
}
