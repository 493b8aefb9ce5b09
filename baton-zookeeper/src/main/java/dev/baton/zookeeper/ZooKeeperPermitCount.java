package dev.baton.zookeeper;

import dev.baton.LockConfigurationException;
import dev.baton.spi.LockRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A semaphore's permit count, which Curator does not store: Baton writes it, as decimal text, into
 * the semaphore node's data when the data is empty, and otherwise compares it (a client with another
 * count fails with {@link LockConfigurationException}); Curator ignores that data. Data that is not a
 * count (a Curator user may have created the node with its own data) is left alone, and then the
 * count is not checked. See {@link ZooKeeperPermits} for when it is read and checked.
 */
final class ZooKeeperPermitCount {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperPermitCount.class);

    private final ZooKeeperCalls calls;

    ZooKeeperPermitCount(ZooKeeperCalls calls) {
        this.calls = calls;
    }

    /** An answer to {@link #read}: the result code, and the data and stat when it is OK. */
    record CountRead(KeeperException.Code code, byte[] data, Stat stat) {}

    /** Sends a read of the semaphore node's data and returns at once; null when not connected. */
    CompletableFuture<CountRead> read(String path) {
        ZooKeeper zk = calls.connectedHandle();
        if (zk == null) {
            return null;
        }
        CompletableFuture<CountRead> answer = new CompletableFuture<>();
        zk.getData(
                calls.namespace + path,
                false,
                (rc, p, ctx, data, stat) -> answer.complete(new CountRead(KeeperException.Code.get(rc), data, stat)),
                null);
        return answer;
    }

    /**
     * Records the count in the semaphore node's data if it has none, or compares it: a
     * compare-and-set on the node's version, so that of two first clients with different counts
     * one records and the other fails. Starts from the answer of {@code sent} ({@link #read})
     * if it came in time and says OK; reads again otherwise.
     */
    void check(LockRequest request, String subject, String path, CompletableFuture<CountRead> sent)
            throws InterruptedException {
        long deadline = calls.deadline();
        byte[] wanted = Integer.toString(request.permits()).getBytes(StandardCharsets.US_ASCII);
        CountRead first = awaitRead(sent, deadline);
        while (true) {
            Stat stat;
            byte[] data;
            if (first != null) {
                stat = first.stat();
                data = first.data();
                first = null;
            } else {
                stat = new Stat();
                try {
                    data = calls.bounded(subject, "reading the permit count", deadline, () -> calls.curator
                            .getData()
                            .storingStatIn(stat)
                            .forPath(path));
                } catch (ZooKeeperCalls.NoNode e) {
                    return; // the session ended with our mutex node: waiting reports it
                }
            }
            if (data == null || data.length == 0) {
                if (record(subject, path, wanted, stat.getVersion(), deadline)) {
                    return;
                }
                continue; // another client wrote first: compare with what it wrote
            }
            int recorded = parseCount(data);
            if (recorded < 0) {
                log.debug(
                        "{}: {} holds data that is not a permit count; the count is not checked",
                        calls.describe(subject),
                        path);
                return;
            }
            if (recorded != request.permits()) {
                throw new LockConfigurationException(calls.describe(subject) + ": asked for " + request.permits()
                        + " permits, but the semaphore has " + recorded + " (recorded in the data of " + path
                        + " by its first client); use the same number of permits for this name in every client, or"
                        + " delete " + path + " while no client uses the semaphore (ZooKeeper removes it by itself"
                        + " once nobody holds or waits for a permit)");
            }
            return;
        }
    }

    /** The answer of {@code sent} if it is OK and came before {@code deadline}; null otherwise. */
    private static CountRead awaitRead(CompletableFuture<CountRead> sent, long deadline) throws InterruptedException {
        if (sent == null) {
            return null;
        }
        try {
            CountRead read = sent.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return read.code() == KeeperException.Code.OK ? read : null;
        } catch (ExecutionException | TimeoutException e) {
            return null; // read again, bounded
        }
    }

    /** Writes the count if the node is still at {@code version}; false if another write came first. */
    private boolean record(String subject, String path, byte[] count, int version, long deadline)
            throws InterruptedException {
        try {
            return calls.bounded(subject, "recording the permit count", deadline, () -> {
                try {
                    calls.curator.setData().withVersion(version).forPath(path, count);
                    return true;
                } catch (KeeperException.BadVersionException e) {
                    return false;
                } catch (KeeperException.NoAuthException e) {
                    log.debug("{}: may not write {}; the count is not recorded", calls.describe(subject), path);
                    return true;
                }
            });
        } catch (ZooKeeperCalls.NoNode e) {
            return true; // as in check
        }
    }

    /** The count in {@code data}, or -1 if it is not a positive decimal number. */
    static int parseCount(byte[] data) {
        if (data.length == 0 || data.length > 10) {
            return -1;
        }
        long value = 0;
        for (byte b : data) {
            if (b < '0' || b > '9') {
                return -1;
            }
            value = value * 10 + (b - '0');
        }
        return value >= 1 && value <= Integer.MAX_VALUE ? (int) value : -1;
    }
}
