package dev.baton.servers;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.InstanceSpec;

/**
 * How {@link ZooKeeperServer} runs its servers in this JVM: each from a spec with a temporary data
 * directory, free loopback ports and a short tick, started from a thread of one group, so that every
 * thread a server starts (also later, on demand) can be told from the client's.
 */
final class ZooKeeperInstances {
    /**
     * Every server thread: servers are started from a thread of this group, and the threads they
     * start (also later, on demand, such as request workers) inherit it. See {@link
     * ZooKeeperServer#isServerThread(Thread)}.
     */
    private static final ThreadGroup SERVER_THREADS = new ThreadGroup("baton-zookeeper-servers");

    private ZooKeeperInstances() {}

    /**
     * Runs {@code start} on a new thread of {@link #SERVER_THREADS} and waits for it, so that the
     * threads the server starts belong to that group.
     */
    static <T> T inServerThreads(Callable<T> start) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread starter = new Thread(
                SERVER_THREADS,
                () -> {
                    try {
                        result.set(start.call());
                    } catch (Exception e) {
                        failure.set(e);
                    }
                },
                "baton-zookeeper-start");
        starter.start();
        try {
            starter.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw e;
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    /** Whether {@code thread} belongs to {@link #SERVER_THREADS}. */
    static boolean isServerThread(Thread thread) {
        for (ThreadGroup group = thread.getThreadGroup(); group != null; group = group.getParent()) {
            if (group == SERVER_THREADS) {
                return true;
            }
        }
        return false;
    }

    /** {@code maxSessionTimeout} in milliseconds, checked against what a test server grants. */
    static int maxSessionMillis(Duration maxSessionTimeout) {
        long millis = maxSessionTimeout.toMillis();
        if (millis < ZooKeeperServer.MIN_SESSION_MILLIS || millis > ZooKeeperServer.MAX_SESSION_MILLIS) {
            throw new IllegalArgumentException(
                    "a test ZooKeeper server grants sessions of " + ZooKeeperServer.MIN_SESSION_MILLIS + " ms to "
                            + ZooKeeperServer.MAX_SESSION_MILLIS + " ms; cannot cap them at " + maxSessionTimeout);
        }
        return (int) millis;
    }

    /** The spec of server {@code serverId}: a new data directory, three free ports not in {@code ports}, a short tick. */
    static InstanceSpec spec(int serverId, Set<Integer> ports, int maxSessionMillis) {
        File dataDir;
        try {
            dataDir = Files.createTempDirectory("baton-zookeeper").toFile();
        } catch (IOException e) {
            throw new IllegalStateException("could not create a temporary directory for ZooKeeper: " + e, e);
        }
        Map<String, Object> properties = Map.of(
                "minSessionTimeout", String.valueOf(ZooKeeperServer.MIN_SESSION_MILLIS),
                "maxSessionTimeout", String.valueOf(maxSessionMillis));
        return new InstanceSpec(
                dataDir,
                FreePort.findNotIn(ports),
                FreePort.findNotIn(ports),
                FreePort.findNotIn(ports),
                true,
                serverId,
                ZooKeeperServer.TICK_MILLIS,
                0,
                properties,
                FreePort.LOOPBACK);
    }
}
