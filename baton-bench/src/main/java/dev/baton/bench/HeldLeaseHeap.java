package dev.baton.bench;

import dev.baton.servers.AzuriteServer;
import dev.baton.servers.EtcdServer;
import dev.baton.servers.PostgresServer;
import dev.baton.servers.RedisServer;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Scenario H: heap per held lease. One client takes N distinct names one after another and holds
 * them; the live heap after a full GC (the JVM's class histogram) with every lease held, minus the
 * live heap before taking them, per lease, and the classes that grew most. The peers' rows hold
 * their own locks the same way on the same server: Redisson's {@code RLock} with its watchdog,
 * Curator's {@code InterProcessMutex}, jetcd's {@code Lock} (one etcd lease kept alive per lock).
 *
 * <p>Every server runs outside this JVM (ZooKeeper's in a child JVM), so the figure is the client's
 * alone. Before the baseline each subject takes and releases {@link #WARM_UP} names, so that pools,
 * caches and classes are warm, and waits a lease time for the timer tasks of those grants to fall
 * due; the names are made before the baseline, so they are not counted. Each row holds its leases
 * for a lease time before the heap is taken, so renewal's state is in the figure.
 */
public final class HeldLeaseHeap {
    /** The backends scenario H knows. */
    public static final List<String> BACKENDS = List.of("redis", "zookeeper", "etcd", "postgres", "azure");

    static final int WARM_UP = 1_000;
    private static final String SERVE_ZOOKEEPER = "--serve-zookeeper";

    private HeldLeaseHeap() {}

    /** One row: {@code subject} holding {@code leases} leases on {@code backend}. */
    public record Row(
            String backend,
            String subject,
            int leases,
            long lost,
            long bytesPerLease,
            Duration took,
            List<HeapHistogram.Contributor> contributors) {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals(SERVE_ZOOKEEPER)) {
            serveZooKeeper();
            return;
        }
        BenchArgs options = BenchArgs.parse(args, "--backends", "--leases", "--peers", "--lease");
        List<String> backends = options.list("--backends", BACKENDS);
        List<Integer> counts = options.counts("--leases", List.of(10_000));
        boolean peers = options.flag("--peers", true);
        Duration lease = options.duration("--lease", Duration.ofSeconds(30));
        List<Row> rows = run(backends, counts, peers, lease, System.out::println);
        System.out.println();
        System.out.print(table(rows, 12));
    }

    /**
     * Runs every backend on its embedded server, each row holding its leases for {@code lease} (their
     * lease time) before the heap is taken; {@code progress} hears each step.
     */
    public static List<Row> run(
            List<String> backends, List<Integer> counts, boolean peers, Duration lease, Consumer<String> progress)
            throws Exception {
        Duration hold = lease;
        for (String backend : backends) {
            if (!BACKENDS.contains(backend)) {
                throw new IllegalArgumentException("unknown backend '" + backend + "'; known: " + BACKENDS);
            }
        }
        List<Row> rows = new ArrayList<>();
        for (String backend : backends) {
            switch (backend) {
                case "redis" -> {
                    try (RedisServer server = RedisServer.start()) {
                        List<Subject> subjects = new ArrayList<>();
                        subjects.add(new Subject("baton", () -> LeaseHolder.baton("baton", server.uri(), lease)));
                        if (peers) {
                            subjects.add(
                                    new Subject("redisson RLock", () -> LeaseHolder.redisson(server.uri(), lease)));
                        }
                        rows.addAll(measureAll(backend, subjects, counts, hold, progress));
                    }
                }
                case "zookeeper" -> {
                    try (ChildZooKeeper server = ChildZooKeeper.start()) {
                        String uri =
                                "zookeeper://" + server.connect + "/held?sessionTimeout=" + lease.toMillis() + "ms";
                        List<Subject> subjects = new ArrayList<>();
                        subjects.add(new Subject("baton", () -> LeaseHolder.baton("baton", uri, lease)));
                        if (peers) {
                            subjects.add(new Subject(
                                    "curator InterProcessMutex", () -> LeaseHolder.curator(server.connect, lease)));
                        }
                        rows.addAll(measureAll(backend, subjects, counts, hold, progress));
                    }
                }
                case "etcd" -> {
                    if (!EtcdServer.installed()) {
                        throw new IllegalStateException(
                                "etcd is not installed; install it with: " + EtcdServer.INSTALL_COMMAND);
                    }
                    try (EtcdServer server = EtcdServer.start()) {
                        String uri = "etcd://" + server.endpoints() + "/held";
                        List<Subject> subjects = new ArrayList<>();
                        subjects.add(new Subject("baton", () -> LeaseHolder.baton("baton", uri, lease)));
                        if (peers) {
                            subjects.add(new Subject("jetcd Lock", () -> LeaseHolder.jetcd(server.endpoints(), lease)));
                        }
                        rows.addAll(measureAll(backend, subjects, counts, hold, progress));
                    }
                }
                case "postgres" -> {
                    try (PostgresServer server = PostgresServer.start()) {
                        String uri = LeaseScaleBench.withCredentials(server, server.jdbcUrl());
                        rows.addAll(measureAll(
                                backend,
                                List.of(new Subject("baton table", () -> LeaseHolder.baton("baton table", uri, lease))),
                                counts,
                                hold,
                                progress));
                    }
                }
                case "azure" -> {
                    try (AzuriteServer server = AzuriteServer.start()) {
                        String uri = server.uri(
                                "held-" + UUID.randomUUID().toString().substring(0, 8));
                        rows.addAll(measureAll(
                                backend,
                                List.of(new Subject("baton", () -> LeaseHolder.baton("baton", uri, lease))),
                                counts,
                                hold,
                                progress));
                    }
                }
                default -> throw new IllegalArgumentException("unknown backend " + backend);
            }
        }
        return rows;
    }

    /** The rows as one Markdown table, then each row's biggest contributors per lease. */
    public static String table(List<Row> rows, int contributors) {
        StringBuilder out = new StringBuilder(
                "Scenario H: one client holds N leases for a lease time; live heap after a full GC with them held,"
                        + " minus before, per lease\n\n");
        out.append("| backend | subject | leases | lost | took | heap per held lease |\n");
        out.append("|---|---|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %,d | %s | %,d B |%n",
                    row.backend(),
                    row.subject(),
                    row.leases(),
                    row.lost(),
                    BenchMain.format(row.took().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)),
                    row.bytesPerLease()));
        }
        out.append(
                "\nBiggest contributors per held lease (instances and bytes per lease, from the class histogram):\n");
        for (Row row : rows) {
            out.append(
                    String.format(Locale.ROOT, "%n%s, %s, %,d leases:%n", row.backend(), row.subject(), row.leases()));
            row.contributors().stream()
                    .limit(contributors)
                    .forEach(c -> out.append(String.format(
                            Locale.ROOT,
                            "  %6.2f x %5d B  %s%n",
                            c.instances() / (double) row.leases(),
                            c.bytes() / row.leases(),
                            c.className())));
        }
        return out.toString();
    }

    private record Subject(String name, Supplier<LeaseHolder> holder) {}

    private static List<Row> measureAll(
            String backend, List<Subject> subjects, List<Integer> counts, Duration hold, Consumer<String> progress)
            throws InterruptedException {
        List<Row> rows = new ArrayList<>();
        for (int count : counts) {
            for (Subject subject : subjects) {
                progress.accept(String.format(Locale.ROOT, "%s %s: taking %,d leases", backend, subject.name(), count));
                Row row = measure(backend, subject, count, hold);
                progress.accept(String.format(
                        Locale.ROOT,
                        "%s %s: %,d B per held lease, %,d lost",
                        backend,
                        subject.name(),
                        row.bytesPerLease(),
                        row.lost()));
                rows.add(row);
            }
        }
        return rows;
    }

    private static Row measure(String backend, Subject subject, int count, Duration hold) throws InterruptedException {
        try (LeaseHolder holder = subject.holder().get()) {
            String prefix = "held-" + UUID.randomUUID() + "-";
            List<String> warm = new ArrayList<>(WARM_UP);
            for (int i = 0; i < WARM_UP; i++) {
                warm.add(prefix + "warm-" + i);
            }
            holder.acquire(warm);
            holder.releaseAll();
            warm = null;
            // A measurement pause, not a synchronisation: the released warm-up grants' renewal and
            // watchdog tasks fall due (within a lease time) and are dropped, so the baseline holds
            // none of them.
            Thread.sleep(hold.plusSeconds(1).toMillis());
            List<String> names = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                names.add(prefix + i);
            }
            HeapHistogram before = HeapHistogram.take();
            long start = System.nanoTime();
            holder.acquire(names);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // Held for a lease time, so that every lease was renewed and its renewal state counts.
            Thread.sleep(hold.toMillis());
            HeapHistogram held = HeapHistogram.take();
            long lost = holder.invalid();
            holder.releaseAll();
            return new Row(
                    backend,
                    subject.name(),
                    count,
                    lost,
                    (held.totalBytes() - before.totalBytes()) / count,
                    took,
                    held.grownSince(before, 12));
        }
    }

    /** A ZooKeeper server in a child JVM, so that its state for each held node is not in this heap. */
    private static final class ChildZooKeeper implements AutoCloseable {
        final Process process;
        final String connect;

        private ChildZooKeeper(Process process, String connect) {
            this.process = process;
            this.connect = connect;
        }

        static ChildZooKeeper start() throws Exception {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            Process process = new ProcessBuilder(
                            java,
                            "-cp",
                            System.getProperty("java.class.path"),
                            HeldLeaseHeap.class.getName(),
                            SERVE_ZOOKEEPER)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("connect ")) {
                    return new ChildZooKeeper(process, line.substring("connect ".length()));
                }
            }
            process.destroyForcibly();
            throw new IllegalStateException("the child JVM's ZooKeeper server did not start");
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /** The child JVM's side: runs a server until its standard input closes. */
    private static void serveZooKeeper() throws Exception {
        try (dev.baton.servers.ZooKeeperServer server = dev.baton.servers.ZooKeeperServer.start()) {
            System.out.println("connect " + server.connectString());
            System.out.flush();
            while (System.in.read() >= 0) {
                // Runs until the parent closes the pipe.
            }
        }
    }
}
