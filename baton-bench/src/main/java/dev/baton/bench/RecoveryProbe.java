package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Measures how long a lock stays unusable after its holder dies: a forked JVM takes the lock with a
 * short lease and is killed with SIGKILL (no release, no goodbye); the probe then measures the time
 * from the kill until it acquires the lock itself. Lease-based backends recover after the lease
 * time, session-based ones after the session timeout, connection-bound ones (advisory, pessimistic)
 * as soon as the server notices the dead connection.
 */
public final class RecoveryProbe {
    /** The lease the dying holder uses. */
    public static final Duration HOLDER_LEASE = Duration.ofSeconds(2);

    private RecoveryProbe() {}

    /**
     * Returns the recovery time for a lock reachable at {@code uri}.
     *
     * @throws IllegalStateException if the holder could not take the lock or the lock never came back
     *     within a minute
     */
    public static Duration measure(String uri) {
        return measure(uri, HOLDER_LEASE);
    }

    /**
     * As {@link #measure(String)}, with the dying holder's lease time {@code holderLease}: a backend
     * whose shortest lease is longer than {@link #HOLDER_LEASE} (Azure Blob: 15 s) says so through
     * {@link BenchBackend#recoveryHolderLease()}.
     */
    public static Duration measure(String uri, Duration holderLease) {
        String name = "bench-recovery-" + UUID.randomUUID();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-XX:TieredStopAtLevel=1",
                        Holder.class.getName(),
                        uri,
                        name,
                        Long.toString(holderLease.toMillis()))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        Process holder;
        try {
            holder = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot fork the holder JVM", e);
        }
        try {
            CompletableFuture<String> acquired = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.startsWith("ACQUIRED")) {
                            return line;
                        }
                    }
                    return null;
                } catch (IOException e) {
                    return null;
                }
            });
            String line = acquired.get(60, TimeUnit.SECONDS);
            if (line == null) {
                throw new IllegalStateException(
                        "the holder JVM exited without taking the lock (exit " + holder.waitFor() + ")");
            }
            try (LockClient client = Baton.connect(
                    uri,
                    LockOptions.builder()
                            .leaseTime(max(Duration.ofSeconds(10), holderLease))
                            .pollInitialDelay(Duration.ofMillis(1))
                            .pollMaxDelay(Duration.ofMillis(10))
                            .build())) {
                long killedAt = System.nanoTime();
                holder.destroyForcibly();
                try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(60))) {
                    return Duration.ofNanos(System.nanoTime() - killedAt);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the holder JVM did not take the lock within 60 s", e);
        } finally {
            holder.destroyForcibly();
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** The holder that dies: takes the lock, says so, and waits to be killed. */
    public static final class Holder {
        private Holder() {}

        public static void main(String[] args) throws InterruptedException {
            LockClient client = Baton.connect(
                    args[0],
                    LockOptions.builder()
                            .leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
                            .build());
            Lease lease = client.lock(args[1]).acquire(Duration.ofSeconds(30));
            System.out.println("ACQUIRED " + lease.fencingToken());
            System.out.flush();
            new CountDownLatch(1).await();
        }
    }
}
