package dev.baton.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs the scenarios from the command line (the {@code baton bench} command builds on the same
 * pieces):
 *
 * <pre>
 * java -cp ... dev.baton.bench.BenchMain --backends h2,postgres --run 5s --warmup 2s --runs 3 --scenarios A1,A8,B8,C8,S8
 *     [--subjects baton,raw]   (only subjects whose name contains one of these)
 *     [--hold 1ms]             (each holder keeps the lock this long before releasing)
 * </pre>
 *
 * <p>S8 (a semaphore of 4 permits, 8 clients) runs only for the subjects that have semaphores; the
 * others get no S8 row.
 *
 * <p>Besides the backends of {@code baton bench}, {@code --backends zookeeper-protocols} measures
 * Baton's and Curator's queue protocols on the bare ZooKeeper client beside Baton, Curator's mutex
 * and the raw baseline ({@link ZooKeeperProtocolSubjects}):
 *
 * <pre>
 * java -cp ... dev.baton.bench.BenchMain --backends zookeeper-protocols --scenarios A8,C8 --run 1s --warmup 1s --runs 15
 * </pre>
 */
public final class BenchMain {
    private BenchMain() {}

    public static void main(String[] args) {
        List<String> backends = new ArrayList<>(BenchBackends.all().keySet());
        List<Scenario> scenarios = Arrays.asList(Scenario.values());
        Duration warmup = Duration.ofSeconds(2);
        Duration run = Duration.ofSeconds(5);
        int runs = 3;
        Duration hold = Duration.ZERO;
        String uri = null;
        List<String> subjectFilter = List.of();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--backends" -> backends = Arrays.asList(value.split(","));
                case "--scenarios" -> scenarios =
                        Arrays.stream(value.split(",")).map(Scenario::valueOf).toList();
                case "--warmup" -> warmup = parse(value);
                case "--run" -> run = parse(value);
                case "--runs" -> runs = Integer.parseInt(value);
                case "--hold" -> hold = parse(value);
                case "--uri" -> uri = value;
                case "--subjects" -> subjectFilter = Arrays.asList(value.split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
            i++;
        }
        List<ScenarioResult> results =
                run(backends, scenarios, new BenchSettings(warmup, run, runs, 8, hold), uri, subjectFilter, System.out);
        System.out.println();
        System.out.print(ResultTable.markdown(results));
        System.out.println();
        System.out.println(ResultTable.FAIRNESS_NOTE);
    }

    /** Runs every subject of every named backend through every scenario. */
    public static List<ScenarioResult> run(
            List<String> backendIds, List<Scenario> scenarios, BenchSettings settings, String uri, PrintStream log) {
        return run(backendIds, scenarios, settings, uri, List.of(), log);
    }

    /**
     * As above, measuring only the subjects whose name contains one of {@code subjectFilter} (all
     * when it is empty); the others are started and closed but not run.
     */
    public static List<ScenarioResult> run(
            List<String> backendIds,
            List<Scenario> scenarios,
            BenchSettings settings,
            String uri,
            List<String> subjectFilter,
            PrintStream log) {
        Map<String, Supplier<BenchBackend>> known = BenchBackends.withProbes();
        List<ScenarioResult> results = new ArrayList<>();
        BenchRunner runner = new BenchRunner(settings, line -> log.println("  " + line));
        for (String id : backendIds) {
            Supplier<BenchBackend> factory = known.get(id);
            if (factory == null) {
                throw new IllegalArgumentException("unknown backend '" + id + "'; known: " + known.keySet());
            }
            try (BenchBackend backend = factory.get()) {
                log.println(id + ": starting");
                List<LockSubject> subjects = backend.start(uri);
                List<LockSubject> measured = subjects.stream()
                        .filter(s -> subjectFilter.isEmpty()
                                || subjectFilter.stream().anyMatch(f -> s.name().contains(f)))
                        .toList();
                try {
                    for (Scenario scenario : scenarios) {
                        results.addAll(runner.runInterleaved(measured, scenario));
                    }
                } finally {
                    subjects.forEach(LockSubject::close);
                }
            }
        }
        return results;
    }

    /** {@code 500ms}, {@code 5s}, {@code 2m}, or an ISO-8601 duration. */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.startsWith("p")) {
            return Duration.parse(text.trim());
        }
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        if (t.endsWith("s")) {
            return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
        }
        if (t.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        return Duration.parse(text);
    }

    /** The way {@link #parse} reads it: {@code 500ms}, {@code 30s} or {@code 2m}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 1000 != 0) {
            return millis + "ms";
        }
        long seconds = millis / 1000;
        return seconds >= 60 && seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }
}
