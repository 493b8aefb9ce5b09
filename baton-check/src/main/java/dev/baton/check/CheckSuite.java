package dev.baton.check;

import dev.baton.servers.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the check: for each chosen target, starts its servers, then one run per fault it supports,
 * each with client JVMs of its own while it lasts (taken idle from earlier runs where there are:
 * {@link ClientJvm}), and returns one {@link CheckRow} per run. The fenced resource lives on
 * a Redis server of its own that no fault touches.
 *
 * <p>Failure behaviour: a server that cannot start fails the call with its own message; a run whose
 * clients cannot start fails likewise (a check that did not run proves nothing).
 */
public final class CheckSuite {
    private static final Logger log = LoggerFactory.getLogger(CheckSuite.class);

    /** Every target, by id, in report order. */
    private static final Map<String, Function<CheckSettings, CheckTarget>> TARGETS = new LinkedHashMap<>();

    static {
        TARGETS.put("postgres", s -> DatabaseTargets.postgres());
        TARGETS.put("redis", s -> RedisTargets.single());
        TARGETS.put("redis-aof", s -> RedisTargets.appendOnly());
        TARGETS.put("redis-sentinel", s -> SentinelTargets.confirmedByAReplica());
        TARGETS.put("redis-sentinel-async", s -> SentinelTargets.asynchronous());
        TARGETS.put("redis-cluster", s -> ClusterTargets.confirmedByAReplica());
        TARGETS.put("redis-cluster-async", s -> ClusterTargets.asynchronous());
        TARGETS.put("redlock", s -> RedisTargets.redlock());
        TARGETS.put("zookeeper", s -> ZooKeeperTargets.ensemble(s.leaseTime()));
        TARGETS.put("zookeeper-short-session", s -> ZooKeeperTargets.shortSession(s.leaseTime()));
        TARGETS.put("zookeeper-clamped", s -> ZooKeeperTargets.clampedSession(s.leaseTime()));
        TARGETS.put("etcd", s -> EtcdTargets.single());
        TARGETS.put("etcd-cluster", s -> EtcdTargets.cluster());
        TARGETS.put("azure", s -> AzureTargets.azurite());
        TARGETS.put("naive-row", s -> DatabaseTargets.naiveRow());
        TARGETS.put("naive-setnx", s -> RedisTargets.naiveSetNx());
        TARGETS.put("naive-znode", s -> ZooKeeperTargets.naiveZnode(s.leaseTime()));
        PeerTargets.register(TARGETS);
    }

    /** The longest run without faults that availability is measured against. */
    static final Duration BASELINE_MAX = Duration.ofSeconds(60);

    /** What {@link #run} is told about while it runs. */
    public interface Progress {
        /** A run starts ({@code index} of {@code total}, from 1). */
        void started(int index, int total, PlannedRun run);

        /** The current run is {@code fraction} done. */
        void running(double fraction);

        /** A run ended. */
        void finished(CheckRow row);
    }

    private CheckSuite() {}

    /** {@return the ids of every target, in report order} */
    public static List<String> targets() {
        return List.copyOf(TARGETS.keySet());
    }

    /** {@return the faults {@code target} supports} */
    public static Set<Fault> faultsOf(String target, CheckSettings settings) {
        try (CheckTarget t = create(target, settings)) {
            return t.faults();
        }
    }

    /**
     * A run {@link #run} will make, known before anything starts: a target, its faults in turn, and
     * the seed of its random choices.
     */
    public record PlannedRun(String target, List<Fault> faults, long seed) {
        public PlannedRun {
            faults = List.copyOf(faults);
        }
    }

    /**
     * {@return the runs for these targets and faults (null faults: each target's whole set) with the
     * seed of {@code settings}: one run per target and fault, or with {@code mixed} one run per target
     * that injects its faults in turn}
     */
    public static List<PlannedRun> plan(
            List<String> targets, Set<Fault> faults, boolean mixed, CheckSettings settings) {
        return plan(targets, faults, mixed, settings, List.of(settings.seed()));
    }

    /**
     * {@return the runs of a seed sweep: for each target, for each seed, the runs of {@link
     * #plan(List, Set, boolean, CheckSettings)}; target by target, so that each target's servers start
     * once}
     */
    public static List<PlannedRun> plan(
            List<String> targets, Set<Fault> faults, boolean mixed, CheckSettings settings, List<Long> seeds) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("a check needs at least one seed");
        }
        List<PlannedRun> runs = new ArrayList<>();
        for (String target : targets) {
            Set<Fault> supported = faultsOf(target, settings);
            List<Fault> chosen = new ArrayList<>();
            for (Fault fault : Fault.values()) {
                if (supported.contains(fault) && (faults == null || faults.contains(fault))) {
                    chosen.add(fault);
                }
            }
            for (long seed : seeds) {
                if (mixed && !chosen.isEmpty()) {
                    runs.add(new PlannedRun(target, chosen, seed));
                } else {
                    chosen.forEach(fault -> runs.add(new PlannedRun(target, List.of(fault), seed)));
                }
            }
        }
        return runs;
    }

    /**
     * {@return the settings a run on {@code target} uses: {@code settings} with the run's seed, the
     * lease raised to the target's minimum and the duration stretched with it}
     */
    public static CheckSettings settingsFor(PlannedRun run, CheckSettings settings) {
        try (CheckTarget t = create(run.target(), settings)) {
            return settingsFor(t, run, settings);
        }
    }

    private static CheckSettings settingsFor(CheckTarget target, PlannedRun run, CheckSettings settings) {
        return settings.withSeed(run.seed()).withMinimumLease(target.minimumLease());
    }

    /** {@return an estimate of how long {@link #run} takes for these runs} */
    public static Duration estimate(List<PlannedRun> runs, CheckSettings settings) {
        // per run: its duration, the settling after the last fault (two leases), client JVMs starting
        // (~4 s on 2 cores) and finishing (~1 s); per target: servers (~3 s)
        Duration total = Duration.ZERO;
        for (PlannedRun run : runs) {
            CheckSettings s = settingsFor(run, settings);
            total = total.plus(s.duration()).plus(s.leaseTime().multipliedBy(2)).plusSeconds(5);
        }
        long targets = runs.stream().map(PlannedRun::target).distinct().count();
        // and for a Baton target the run without faults that availability is measured against
        long baselines = runs.stream()
                .map(PlannedRun::target)
                .distinct()
                .filter(t -> !t.startsWith("naive-"))
                .count();
        Duration baseline = settings.duration().compareTo(BASELINE_MAX) < 0 ? settings.duration() : BASELINE_MAX;
        return total.plusSeconds(3 * targets).plus(baseline.plusSeconds(5).multipliedBy(baselines));
    }

    /**
     * Ends the client JVMs that runs keep idle for the next run (they would otherwise end with this
     * JVM): a program that goes on after its check runs calls it, so that no client process outlives
     * them.
     */
    public static void closeIdleClients() {
        ClientJvm.closeIdle();
    }

    /**
     * Runs {@code runs} in order, target by target.
     *
     * @throws IllegalArgumentException for an unknown target
     * @throws InterruptedException if interrupted; the servers and clients started are stopped
     */
    public static List<CheckRow> run(List<PlannedRun> runs, CheckSettings settings, Progress progress)
            throws InterruptedException {
        return run(runs, settings, progress, false);
    }

    /**
     * Runs {@code runs} in order, target by target; with {@code availability}, each Baton target
     * first runs once without faults (for the same duration, at most {@link #BASELINE_MAX}), and each
     * of its rows tells its grants per second relative to that run ({@link CheckRow#availability()}).
     *
     * @throws IllegalArgumentException for an unknown target
     * @throws InterruptedException if interrupted; the servers and clients started are stopped
     */
    public static List<CheckRow> run(
            List<PlannedRun> runs, CheckSettings settings, Progress progress, boolean availability)
            throws InterruptedException {
        List<CheckRow> rows = new ArrayList<>();
        CheckRow baseline = null;
        try (RedisServer fence = RedisServer.startEmbedded()) {
            String current = null;
            CheckTarget target = null;
            try {
                int index = 0;
                for (PlannedRun planned : runs) {
                    index++;
                    if (!planned.target().equals(current)) {
                        if (target != null) {
                            target.close();
                        }
                        current = planned.target();
                        target = create(current, settings);
                        target.start(plannedFaults(runs, index - 1));
                        baseline = null;
                        if (availability && !target.naive()) {
                            // the target's own lease and stretched duration, as its runs have them
                            CheckSettings own = settingsFor(target, planned, settings);
                            CheckSettings calm = own.withDuration(
                                    own.duration().compareTo(BASELINE_MAX) < 0 ? own.duration() : BASELINE_MAX);
                            baseline = new CheckRun(target, List.of(), calm, fence.uri()).run(fraction -> {});
                            log.info("{} without faults: {} grants/s", current, baseline.grantsPerSecond());
                        }
                    }
                    progress.started(index, runs.size(), planned);
                    CheckSettings runSettings = settingsFor(target, planned, settings);
                    CheckRow row =
                            new CheckRun(target, planned.faults(), runSettings, fence.uri()).run(progress::running);
                    if (baseline != null) {
                        row = row.comparedWith(baseline);
                    }
                    log.info(
                            "{} under {}, seed {}: {}: {}",
                            row.target(),
                            row.faultLabel(),
                            row.seed(),
                            row.verdict().label(),
                            row.result());
                    progress.finished(row);
                    rows.add(row);
                }
            } finally {
                if (target != null) {
                    target.close();
                }
            }
        }
        return rows;
    }

    /** The faults of the run at {@code first} and of the runs on the same target right after it. */
    private static Set<Fault> plannedFaults(List<PlannedRun> runs, int first) {
        Set<Fault> planned = EnumSet.noneOf(Fault.class);
        String target = runs.get(first).target();
        for (int i = first; i < runs.size() && runs.get(i).target().equals(target); i++) {
            planned.addAll(runs.get(i).faults());
        }
        return planned;
    }

    static CheckTarget create(String target, CheckSettings settings) {
        Function<CheckSettings, CheckTarget> factory = TARGETS.get(target);
        if (factory == null) {
            throw new IllegalArgumentException("unknown check target '" + target + "'; choose from " + targets());
        }
        return factory.apply(settings);
    }
}
