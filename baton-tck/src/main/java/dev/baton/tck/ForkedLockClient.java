package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The program the kit forks to test across processes. It talks to its parent through standard
 * output lines and its exit code only.
 *
 * <ul>
 *   <li>{@code hold URI NAME LEASE_MS}: acquire, print {@code ACQUIRED <token>}, then hold until
 *       killed.
 *   <li>{@code count URI NAME ITERATIONS COUNTER_FILE MARKER_FILE LEASE_MS}: repeatedly acquire,
 *       check that nobody else is inside (marker file), increment the counter file non-atomically,
 *       release; print {@code DONE}; exit 3 on an observed overlap.
 * </ul>
 */
public final class ForkedLockClient {
    static final int EXIT_OVERLAP = 3;

    private ForkedLockClient() {}

    /**
     * Runs one mode, as described in the class comment.
     *
     * @param args the mode followed by its arguments: {@code hold URI NAME LEASE_MS} or {@code count
     *     URI NAME ITERATIONS COUNTER_FILE MARKER_FILE LEASE_MS}
     * @throws Exception any failure, which ends the process with a stack trace and a non-zero exit
     *     code other than 3
     */
    public static void main(String[] args) throws Exception {

        String mode = args[0];
        String uri = args[1];
        String name = args[2];
        switch (mode) {
            case "hold" -> hold(uri, name, Duration.ofMillis(Long.parseLong(args[3])));
            case "count" -> count(
                    uri,
                    name,
                    Integer.parseInt(args[3]),
                    Path.of(args[4]),
                    Path.of(args[5]),
                    Duration.ofMillis(Long.parseLong(args[6])));
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static void hold(String uri, String name, Duration lease) throws InterruptedException {
        LockClient client =
                Baton.connect(uri, LockOptions.builder().leaseTime(lease).build());
        Lease held = client.lock(name).acquire(Duration.ofSeconds(60));
        System.out.println("ACQUIRED " + held.fencingToken());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static void count(String uri, String name, int iterations, Path counter, Path marker, Duration lease)
            throws IOException {
        LockOptions options = LockOptions.builder()
                .leaseTime(lease)
                .pollInitialDelay(Duration.ofMillis(2))
                .pollMaxDelay(Duration.ofMillis(20))
                .build();
        try (LockClient client = Baton.connect(uri, options)) {
            DistributedLock lock = client.lock(name);
            for (int i = 0; i < iterations; i++) {
                lock.lock();
                try {
                    try {
                        Files.createFile(marker);
                    } catch (FileAlreadyExistsException e) {
                        System.out.println("OVERLAP at iteration " + i);
                        System.out.flush();
                        System.exit(EXIT_OVERLAP);
                    }
                    long value = Long.parseLong(
                            Files.readString(counter, StandardCharsets.UTF_8).trim());
                    Files.writeString(counter, Long.toString(value + 1), StandardCharsets.UTF_8);
                    Files.delete(marker);
                } finally {
                    lock.unlock();
                }
            }
        }
        System.out.println("DONE");
        System.out.flush();
    }
}
