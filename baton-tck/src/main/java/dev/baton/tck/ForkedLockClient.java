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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The program the kit forks to test across processes: a worker ({@link ForkedWorkers}) that runs
 * the modes its standard input asks for, each on a thread of its own, and ends when its standard
 * input does. It talks to its parent through standard input and output lines only. A backend's first
 * run warms the worker up ({@link ColdStart}), so that the first call of the client under test does
 * not carry the driver's cold start.
 *
 * <p>A run starts with a line {@code <id>\t<mode>\t<args...>}; everything it prints is {@code <id>
 * <text>}, and its last line is {@code <id> END}. A holder mode waits, once it holds, for the one
 * message its parent may send it, {@code tell\t<id>\t<message>}; a worker the kit kills or stops
 * while it holds serves nobody after that ({@link ForkedJvm}).
 *
 * <ul>
 *   <li>{@code count URI NAME ITERATIONS COUNTER_FILE MARKER_FILE LEASE_MS}: repeatedly acquire,
 *       check that nobody else is inside (marker file), increment the counter file non-atomically,
 *       release; print {@code DONE}, or the overlap seen.
 *   <li>{@code count-permits URI NAME PERMITS ITERATIONS DIR LEASE_MS}: repeatedly take a permit,
 *       create a file of its own in {@code DIR}, note an overlap if {@code DIR} then holds more than
 *       {@code PERMITS} files, delete the file and give the permit back; print {@code DONE}, or the
 *       overlap seen.
 *   <li>{@code hold URI NAME LEASE_MS}: acquire, print {@code ACQUIRED <token>}, hold until told,
 *       then release.
 *   <li>{@code hold-permit URI NAME PERMITS LEASE_MS}: as {@code hold}, for one permit of a
 *       semaphore.
 *   <li>{@code hold-and-lead URI NAME LEASE_MS}: acquire {@code NAME}, print {@code ACQUIRED
 *       <token>}, stand for the leadership of {@code NAME} + {@link #LEADERSHIP_SUFFIX} and print
 *       {@code ELECTED <epoch>} (and {@code REVOKED <epoch> <reason>} as its listener hears it); when
 *       told, ask the lease {@code isValid()} and the leadership {@code isLeader()}, each for the
 *       first time, and print {@code ASKED valid=<v> leader=<l>}.
 *   <li>{@code stand URI NAME LEASE_MS}: stand for the leadership of {@code NAME} ({@link
 *       ForkedCandidate}), print {@code STANDING}, then {@code ELECTED <epoch>} and {@code REVOKED
 *       <epoch> <reason>} as its listener hears them; when told, resign and print {@code CLOSED}.
 * </ul>
 *
 * <p>A failure prints {@code FAILED <exception>} (its stack trace goes to standard error).
 */
public final class ForkedLockClient {
    /** Between the fields of an input line. */
    static final String SEPARATOR = "\t";
    /** The first field of a message to a run that holds: {@code tell\t<id>\t<message>}. */
    static final String TELL = "tell";
    /** A run's last line. */
    static final String END = "END";
    /** What {@code hold-and-lead} appends to the lock's name for the leadership it stands for. */
    static final String LEADERSHIP_SUFFIX = "-leadership";

    private ForkedLockClient() {}

    /**
     * Serves the runs its standard input asks for, as described in the class comment, until
     * standard input ends.
     *
     * @param args none
     * @throws IOException if standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        Set<String> warm = ConcurrentHashMap.newKeySet();
        Map<String, BlockingQueue<String>> inboxes = new ConcurrentHashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] fields = line.split(SEPARATOR);
            if (fields[0].equals(TELL)) {
                BlockingQueue<String> inbox = inboxes.get(fields[1]);
                if (inbox != null) {
                    inbox.add(fields[2]);
                }
                continue;
            }
            String id = fields[0];
            BlockingQueue<String> inbox = new LinkedBlockingQueue<>();
            inboxes.put(id, inbox);
            Thread run = new Thread(
                    () -> {
                        try {
                            serveOne(fields, warm, text -> say(id + " " + text), inbox);
                        } finally {
                            inboxes.remove(id);
                            say(id + " " + END);
                        }
                    },
                    id);
            run.setDaemon(true);
            run.start();
        }
    }

    private static void serveOne(String[] fields, Set<String> warm, Consumer<String> out, BlockingQueue<String> inbox) {
        try {
            String mode = fields[1];
            String uri = fields[2];
            String name = fields[3];
            Duration lease = Duration.ofMillis(Long.parseLong(fields[fields.length - 1]));
            if (warm.add(uri)) {
                ColdStart.warmUp(uri, lease);
            }
            switch (mode) {
                case "count" -> out.accept(done(
                        count(uri, name, Integer.parseInt(fields[4]), Path.of(fields[5]), Path.of(fields[6]), lease)));
                case "count-permits" -> out.accept(done(countPermits(
                        uri,
                        name,
                        Integer.parseInt(fields[4]),
                        Integer.parseInt(fields[5]),
                        Path.of(fields[6]),
                        lease)));
                case "hold" -> hold(uri, lease, client -> client.lock(name).acquire(ColdStart.BOUND), out, inbox);
                case "hold-permit" -> hold(
                        uri,
                        lease,
                        client -> client.semaphore(name, Integer.parseInt(fields[4]))
                                .acquire(ColdStart.BOUND),
                        out,
                        inbox);
                case "hold-and-lead" -> holdAndLead(uri, name, lease, out, inbox);
                case "stand" -> stand(uri, name, lease, out, inbox);
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        } catch (Exception | Error e) {
            e.printStackTrace();
            out.accept("FAILED " + e);
        }
    }

    private static String done(String overlap) {
        return overlap == null ? "DONE" : overlap;
    }

    private static void hold(
            String uri,
            Duration lease,
            Function<LockClient, Lease> acquire,
            Consumer<String> out,
            BlockingQueue<String> inbox)
            throws InterruptedException {
        try (LockClient client =
                Baton.connect(uri, LockOptions.builder().leaseTime(lease).build())) {
            Lease held = acquire.apply(client);
            out.accept("ACQUIRED " + held.fencingToken());
            inbox.take();
            held.close();
        }
    }

    /**
     * The {@code hold-and-lead} mode: its two questions are the run's first calls of either kind, so
     * that a parent that stopped the worker and told it to ask before {@code SIGCONT} learns what a
     * holder and a leader say on their first call after the pause.
     */
    private static void holdAndLead(
            String uri, String name, Duration lease, Consumer<String> out, BlockingQueue<String> inbox)
            throws InterruptedException {
        try (LockClient client = Baton.connect(uri, ForkedCandidate.options(lease))) {
            Lease held = client.lock(name).acquire(ColdStart.BOUND);
            out.accept("ACQUIRED " + held.fencingToken());
            try (Leadership leadership = ForkedCandidate.stand(client, name + LEADERSHIP_SUFFIX, out)) {
                inbox.take();
                boolean valid = held.isValid();
                boolean leader = leadership.isLeader();
                out.accept("ASKED valid=" + valid + " leader=" + leader);
            }
            held.close();
        }
    }

    private static void stand(
            String uri, String name, Duration lease, Consumer<String> out, BlockingQueue<String> inbox)
            throws InterruptedException {
        try (LockClient client = Baton.connect(uri, ForkedCandidate.options(lease))) {
            Leadership leadership = ForkedCandidate.stand(client, name, out);
            out.accept("STANDING");
            inbox.take();
            leadership.close();
            out.accept("CLOSED");
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
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
