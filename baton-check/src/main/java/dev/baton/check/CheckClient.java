package dev.baton.check;

import dev.baton.check.HistoryEvent.Kind;
import dev.baton.redis.RedisFencing;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The workload of one client JVM of a check: until its standard input closes, it takes one of the
 * check's locks, works inside the critical section, writes to the fenced resource with its token,
 * and releases, printing each step as a {@link HistoryEvent} line. The orchestrator kills, pauses
 * and isolates these processes; they only report what they see.
 *
 * <p>One JVM serves several runs in turn, as its standard input tells it: a line {@code run} and the
 * run's arguments starts one, a line {@value #FINISH} (or the end of input) ends it; the client then
 * closes the run's subject and fenced resource, prints {@value #FINISHED}, and waits for the next run,
 * or exits at the end of input. Starting the JVM is most of a client's CPU, so a run takes the JVMs
 * an earlier one left ({@link ClientJvm}); each run still has a subject, connections and a random
 * sequence of its own.
 *
 * <p>A run's arguments are {@code key=value}: {@code client}, {@code subject} (baton, naive-row, naive-setnx,
 * naive-znode, or a peer's: {@link PeerSubjects}), {@code uri}, {@code fence} (the Redis URI of the fenced resource), {@code locks}
 * (comma-separated), {@code lease}, {@code work} and {@code longWork} (milliseconds), {@code seed}.
 */
public final class CheckClient {
    /** A waiter gives up after this and tries another lock, so that every client keeps moving. */
    private static final Duration WAIT = Duration.ofSeconds(2);
    /** One hold in this many does the long work. */
    private static final int LONG_SHARE = 10;

    private final int client;
    private final ClientSubject subject;
    private final FencedResource fence;
    private final List<String> locks;
    private final Duration work;
    private final Duration longWork;
    private final Random random;
    private final PrintStream out;
    private volatile boolean running = true;

    private CheckClient(Map<String, String> args, PrintStream out) {
        this.out = out;
        this.client = Integer.parseInt(args.get("client"));
        this.locks = List.of(args.get("locks").split(","));
        this.work = Duration.ofMillis(Long.parseLong(args.get("work")));
        this.longWork = Duration.ofMillis(Long.parseLong(args.get("longWork")));
        this.random = new Random(Long.parseLong(args.get("seed")) * 31 + client);
        Duration lease = Duration.ofMillis(Long.parseLong(args.get("lease")));
        this.fence = new FencedResource(args.get("fence"));
        String uri = args.get("uri");
        this.subject = switch (args.get("subject")) {
            case "baton" -> ClientSubject.baton(uri, lease);
            case "naive-row" -> NaiveLocks.insertRow(uri);
            case "naive-setnx" -> NaiveLocks.setNx(uri, lease);
            case "naive-znode" -> NaiveLocks.ephemeralNode(
                    uri, lease, lock -> print(Kind.WOKEN, lock, 0, System.nanoTime(), false));
            default -> PeerSubjects.create(args.get("subject"), uri, lease)
                    .orElseThrow(() -> new IllegalArgumentException("unknown subject " + args.get("subject")));
        };
    }

    /** The line that starts a run, before its arguments. */
    static final String RUN = "run";
    /** The line that ends the current run. */
    static final String FINISH = "finish";
    /** What the client prints once a run's subject and fence are closed: no history line. */
    static final String FINISHED = "# finished";

    private static volatile boolean inputEnded;

    public static void main(String[] argv) throws InterruptedException {
        BlockingQueue<Optional<String>> runs = new LinkedBlockingQueue<>();
        AtomicReference<CheckClient> current = new AtomicReference<>();
        Thread input = new Thread(() -> readInput(System.in, runs, current), "check-stdin");
        input.setDaemon(true);
        input.start();
        Optional<String> next;
        while ((next = runs.take()).isPresent()) {
            CheckClient client = new CheckClient(arguments(next.get()), System.out);
            current.set(client);
            if (inputEnded) {
                client.running = false; // the orchestrator left while the subject connected
            }
            client.print(Kind.READY, "-", 0, System.nanoTime(), false);
            client.run();
            current.set(null);
            client.subject.close();
            client.fence.close();
            System.out.println(FINISHED);
        }
        System.exit(0);
    }

    private static Map<String, String> arguments(String line) {
        Map<String, String> args = new HashMap<>();
        for (String arg : line.substring(RUN.length()).trim().split(" ")) {
            int eq = arg.indexOf('=');
            args.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return args;
    }

    /**
     * Reads the orchestrator's lines: a run's arguments go to {@code runs}; {@value #FINISH} stops the
     * current run; the end of input (the orchestrator is gone or done) stops it too, and the JVM.
     */
    private static void readInput(
            InputStream in, BlockingQueue<Optional<String>> runs, AtomicReference<CheckClient> current) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith(RUN + " ")) {
                    runs.add(Optional.of(line));
                } else if (line.equals(FINISH)) {
                    stop(current.get());
                }
            }
        } catch (IOException e) {
            // the orchestrator is gone: stop as well
        }
        inputEnded = true;
        stop(current.get());
        runs.add(Optional.empty());
    }

    private static void stop(CheckClient client) {
        if (client != null) {
            client.running = false;
        }
    }

    private void run() {
        while (running) {
            String lock = locks.get(random.nextInt(locks.size()));
            try {
                Optional<ClientSubject.Hold> taken =
                        subject.acquire(lock, WAIT, () -> print(Kind.LOST, lock, -1, System.nanoTime(), false));
                if (taken.isEmpty()) {
                    continue;
                }
                ClientSubject.Hold hold = taken.get();
                // Stamped first, then asked: a lease already invalid right after the stamp may have been
                // stamped late (the client stopped after acquire returned), which the flag tells the checker.
                long acquiredAt = System.nanoTime();
                print(Kind.ACQUIRED, lock, hold.token(), acquiredAt, hold.knownLost());
                try {
                    // The critical section's work: mostly short; one in LONG_SHARE outlasts the lease, so
                    // that renewals run under the faults and a fault can meet a holder mid-work.
                    boolean longOne = random.nextInt(LONG_SHARE) == 0;
                    Thread.sleep((longOne ? longWork : work).toMillis());
                    // Stamped before asking: a yes then holds from the stamp on (the checker's strictness).
                    long askedAt = System.nanoTime();
                    if (!hold.knownLost()) {
                        print(Kind.BELIEVED, lock, hold.token(), askedAt, true);
                    }
                    long writeAt = System.nanoTime();
                    boolean accepted = fence.write(lock, client, hold.token());
                    out.println(new HistoryEvent(
                                    Kind.WROTE, client, lock, hold.token(), writeAt, accepted, System.nanoTime())
                            .format());
                } finally {
                    print(Kind.RELEASING, lock, hold.token(), System.nanoTime(), hold.knownLost());
                    hold.release();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                print(Kind.FAILED, lock, 0, System.nanoTime(), false);
                System.err.println("client " + client + ": " + e);
                try {
                    Thread.sleep(50); // back off while a fault lasts
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private void print(Kind kind, String lock, long token, long nanos, boolean flag) {
        String line = new HistoryEvent(kind, client, lock, token, nanos, flag).format();
        out.println(line); // one println is one write: lines of two threads never mix
    }

    /** The resource the locks protect: one Redis hash per lock, written through the fencing script. */
    private static final class FencedResource implements AutoCloseable {
        private final RedisClient redis;
        private final StatefulRedisConnection<String, String> connection;

        FencedResource(String uri) {
            this.redis = RedisClient.create(uri);
            this.connection = redis.connect();
        }

        boolean write(String lock, int client, long token) {
            return RedisFencing.guardedSet(
                    connection.sync(), "fenced:" + lock, "written by client " + client + " with token " + token, token);
        }

        @Override
        public void close() {
            connection.close();
            redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
