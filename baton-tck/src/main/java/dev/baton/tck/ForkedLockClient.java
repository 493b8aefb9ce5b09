package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Leadership;
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
 * output lines and its exit code only. Every mode first warms the JVM up ({@link ColdStart}), so
 * that the first call of the client under test does not carry the driver's cold start.
 *
 * <ul>
 *   <li>{@code hold URI NAME LEASE_MS}: acquire, print {@code ACQUIRED <token>}, then hold until
 *       killed.
 *   <li>{@code count URI NAME ITERATIONS COUNTER_FILE MARKER_FILE LEASE_MS}: repeatedly acquire,
 *       check that nobody else is inside (marker file), increment the counter file non-atomically,
 *       release; print {@code DONE}; exit 3 on an observed overlap.
 *   <li>{@code hold-permit URI NAME PERMITS LEASE_MS}: as {@code hold}, for one permit of a
 *       semaphore.
 *   <li>{@code hold-and-lead URI NAME LEASE_MS}: acquire {@code NAME}, print {@code ACQUIRED
 *       <token>}, stand for the leadership of {@code NAME} + {@link #LEADERSHIP_SUFFIX} and print
 *       {@code ELECTED <epoch>} (and {@code REVOKED <epoch> <reason>} as its listener hears it); when
 *       standard input closes, ask the lease {@code isValid()} and the
 *       leadership {@code isLeader()}, each for the first time, print {@code ASKED valid=<v>
 *       leader=<l>} and exit.
 *   <li>{@code count-permits URI NAME PERMITS ITERATIONS DIR LEASE_MS}: repeatedly take a permit,
 *       create a file of its own in {@code DIR}, exit 3 if {@code DIR} then holds more than {@code
 *       PERMITS} files, delete the file and give the permit back; print {@code DONE}.
 * </ul>
 */
public final class ForkedLockClient {
    static final int EXIT_OVERLAP = 3;
    /** What {@code hold-and-lead} appends to the lock's name for the leadership it stands for. */
    static final String LEADERSHIP_SUFFIX = "-leadership";

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
        ColdStart.warmUp(uri, Duration.ofMillis(Long.parseLong(args[args.length - 1])));
        switch (mode) {
            case "hold" -> hold(uri, name, Duration.ofMillis(Long.parseLong(args[3])));
            case "hold-and-lead" -> holdAndLead(uri, name, Duration.ofMillis(Long.parseLong(args[3])));
            case "hold-permit" -> holdPermit(
                    uri, name, Integer.parseInt(args[3]), Duration.ofMillis(Long.parseLong(args[4])));
            case "count-permits" -> report(countPermits(
                    uri,
                    name,
                    Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]),
                    Path.of(args[5]),
                    Duration.ofMillis(Long.parseLong(args[6]))));
            case "count" -> report(count(
                    uri,
                    name,
                    Integer.parseInt(args[3]),
                    Path.of(args[4]),
                    Path.of(args[5]),
                    Duration.ofMillis(Long.parseLong(args[6]))));
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

    /**
     * The {@code hold-and-lead} mode: its two questions are the process's first calls of either
     * kind, so that a parent that stopped it and closed its input before {@code SIGCONT} learns what a
     * holder and a leader say on their first call after the pause.
     */
    private static void holdAndLead(String uri, String name, Duration lease) throws IOException {
        LockClient client = Baton.connect(uri, ForkedCandidate.options(lease));
        Lease held = client.lock(name).acquire(ColdStart.BOUND);
        say("ACQUIRED " + held.fencingToken());
        Leadership leadership = ForkedCandidate.stand(client, name + LEADERSHIP_SUFFIX, ForkedLockClient::say);
        while (System.in.read() != -1) {
            // the parent closes our input once we run again
        }
        boolean valid = held.isValid();
        boolean leader = leadership.isLeader();
        say("ASKED valid=" + valid + " leader=" + leader);
        System.exit(0);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void holdPermit(String uri, String name, int permits, Duration lease) throws InterruptedException {
        LockClient client =
                Baton.connect(uri, LockOptions.builder().leaseTime(lease).build());
        Lease held = client.semaphore(name, permits).acquire(Duration.ofSeconds(60));
        System.out.println("ACQUIRED " + held.fencingToken());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /**
     * The {@code count-permits} loop, which the kit also runs in its own JVM beside the children.
     *
     * @return {@code null}, or what was seen when more than {@code permits} holders were inside
     */
    static String countPermits(String uri, String name, int permits, int iterations, Path dir, Duration lease)
            throws IOException {
        try (LockClient client = Baton.connect(uri, fastPolling(lease))) {
            DistributedSemaphore semaphore = client.semaphore(name, permits);
            for (int i = 0; i < iterations; i++) {
                try (Lease permit = semaphore.acquire(Duration.ofSeconds(60))) {
                    Path mine = dir.resolve(ProcessHandle.current().pid() + "-" + i);
                    Files.createFile(mine);
                    long inside;
                    try (var files = Files.list(dir)) {
                        inside = files.count();
                    }
                    if (inside > permits) {
                        return "OVERLAP at iteration " + i + ": " + inside + " holders of " + permits;
                    }
                    Files.delete(mine);
                }
            }
        }
        return null;
    }

    private static LockOptions fastPolling(Duration lease) {
        return LockOptions.builder()
                .leaseTime(lease)
                .pollInitialDelay(Duration.ofMillis(2))
                .pollMaxDelay(Duration.ofMillis(20))
                .build();
    }

    /**
     * The {@code count} loop, which the kit also runs in its own JVM beside the children.
     *
     * @return {@code null}, or the iteration at which another holder's marker was found
     */
    static String count(String uri, String name, int iterations, Path counter, Path marker, Duration lease)
            throws IOException {
        try (LockClient client = Baton.connect(uri, fastPolling(lease))) {
            DistributedLock lock = client.lock(name);
            for (int i = 0; i < iterations; i++) {
                lock.lock();
                try {
                    try {
                        Files.createFile(marker);
                    } catch (FileAlreadyExistsException e) {
                        return "OVERLAP at iteration " + i;
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
        return null;
    }

    /** Ends a counting mode: {@code DONE}, or the overlap and exit code {@link #EXIT_OVERLAP}. */
    private static void report(String overlap) {
        System.out.println(overlap == null ? "DONE" : overlap);
        System.out.flush();
        if (overlap != null) {
            System.exit(EXIT_OVERLAP);
        }
    }
}
