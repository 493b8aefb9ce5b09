package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Leadership;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * The program the kit forks to test across processes. It talks to its parent through standard
 * input and output lines and its exit code only. Every mode first warms the JVM up ({@link
 * ColdStart}), so that the first call of the client under test does not carry the driver's cold
 * start.
 *
 * <ul>
 *   <li>{@code hold URI NAME LEASE_MS}: acquire, print {@code ACQUIRED <token>}, then hold until
 *       killed.
 *   <li>{@code hold-permit URI NAME PERMITS LEASE_MS}: as {@code hold}, for one permit of a
 *       semaphore.
 *   <li>{@code hold-and-lead URI NAME LEASE_MS}: acquire {@code NAME}, print {@code ACQUIRED
 *       <token>}, stand for the leadership of {@code NAME} + {@link #LEADERSHIP_SUFFIX} and print
 *       {@code ELECTED <epoch>} (and {@code REVOKED <epoch> <reason>} as its listener hears it); when
 *       standard input closes, ask the lease {@code isValid()} and the
 *       leadership {@code isLeader()}, each for the first time, print {@code ASKED valid=<v>
 *       leader=<l>} and exit.
 *   <li>{@code serve}: a worker ({@link ForkedWorkers}) that runs the counting loops its standard
 *       input asks for, each answered on standard output:
 *       <ul>
 *         <li>{@code count URI NAME ITERATIONS COUNTER_FILE MARKER_FILE LEASE_MS}: repeatedly
 *             acquire, check that nobody else is inside (marker file), increment the counter file
 *             non-atomically, release; answer {@code DONE}, or the overlap seen.
 *         <li>{@code count-permits URI NAME PERMITS ITERATIONS DIR LEASE_MS}: repeatedly take a
 *             permit, create a file of its own in {@code DIR}, note an overlap if {@code DIR} then
 *             holds more than {@code PERMITS} files, delete the file and give the permit back;
 *             answer {@code DONE}, or the overlap seen.
 *       </ul>
 * </ul>
 */
public final class ForkedLockClient {
    /** Between the fields of a {@code serve} mode's input line. */
    static final String SEPARATOR = "\t";
    /** What {@code hold-and-lead} appends to the lock's name for the leadership it stands for. */
    static final String LEADERSHIP_SUFFIX = "-leadership";

    private ForkedLockClient() {}

    /**
     * Runs one mode, as described in the class comment.
     *
     * @param args the mode followed by its arguments, as in the class comment
     * @throws Exception any failure, which ends the process with a stack trace and a non-zero exit
     *     code
     */
    public static void main(String[] args) throws Exception {
        if (args[0].equals("serve")) {
            serve();
            return;
        }
        String mode = args[0];
        String uri = args[1];
        String name = args[2];
        ColdStart.warmUp(uri, Duration.ofMillis(Long.parseLong(args[args.length - 1])));
        switch (mode) {
            case "hold" -> hold(uri, name, Duration.ofMillis(Long.parseLong(args[3])));
            case "hold-and-lead" -> holdAndLead(uri, name, Duration.ofMillis(Long.parseLong(args[3])));
            case "hold-permit" -> holdPermit(
                    uri, name, Integer.parseInt(args[3]), Duration.ofMillis(Long.parseLong(args[4])));
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    /**
     * The {@code serve} mode ({@link ForkedWorkers}): runs each line of standard input, {@code
     * <id>\t<mode>\t<args...>} with a counting mode, on a thread of its own, and prints {@code <id>
     * DONE}, {@code <id> <overlap seen>} or {@code <id> FAILED <exception>}; ends when standard input
     * does. A backend's first run warms the JVM up as a fresh child does ({@link ColdStart}).
     */
    private static void serve() throws IOException {
        Set<String> warm = ConcurrentHashMap.newKeySet();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] fields = line.split(SEPARATOR);
            Thread run = new Thread(() -> System.out.println(fields[0] + " " + serveOne(fields, warm)), fields[0]);
            run.setDaemon(true);
            run.start();
        }
    }

    private static String serveOne(String[] fields, Set<String> warm) {
        try {
            String mode = fields[1];
            String uri = fields[2];
            String name = fields[3];
            Duration lease = Duration.ofMillis(Long.parseLong(fields[fields.length - 1]));
            if (warm.add(uri)) {
                ColdStart.warmUp(uri, lease);
            }
            String overlap =
                    switch (mode) {
                        case "count" -> count(
                                uri, name, Integer.parseInt(fields[4]), Path.of(fields[5]), Path.of(fields[6]), lease);
                        case "count-permits" -> countPermits(
                                uri,
                                name,
                                Integer.parseInt(fields[4]),
                                Integer.parseInt(fields[5]),
                                Path.of(fields[6]),
                                lease);
                        default -> throw new IllegalArgumentException("not a counting mode: " + mode);
                    };
            return overlap == null ? "DONE" : overlap;
        } catch (Exception | Error e) {
            e.printStackTrace();
            return "FAILED " + e;
        }
    }

    private static void hold(String uri, String name, Duration lease) throws InterruptedException {
        LockClient client =
                Baton.connect(uri, LockOptions.builder().leaseTime(lease).build());
        Lease held = client.lock(name).acquire(ColdStart.BOUND);
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
        Lease held = client.semaphore(name, permits).acquire(ColdStart.BOUND);
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
            // A waiter may be passed over for the whole run: the workers' grants and this process's.
            Duration wait = KitTime.bulkWork((ForkedWorkers.COUNT + 1) * iterations);
            for (int i = 0; i < iterations; i++) {
                try (Lease permit = semaphore.acquire(wait)) {
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
}
