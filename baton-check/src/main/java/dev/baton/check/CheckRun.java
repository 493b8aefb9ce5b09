package dev.baton.check;

import dev.baton.testsupport.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One run: the clients of one target work for the set duration while one kind of fault hits them
 * again and again; then the checker reads the history.
 */
final class CheckRun {
    private static final Duration CLIENT_START = Duration.ofSeconds(60);

    private final CheckTarget target;
    private final List<Fault> faults;
    private final CheckSettings settings;
    private final String fenceUri;
    private final Random random;
    private final History history = new History();
    private final List<ClientProcess> clients = new ArrayList<>();
    private final List<CheckTarget.Route> routes = new ArrayList<>();
    private int faultsInjected;

    /**
     * A run that injects {@code faults} in turn (one fault: that fault again and again); no faults is
     * the baseline a target's availability is measured against.
     */
    CheckRun(CheckTarget target, List<Fault> faults, CheckSettings settings, String fenceUri) {
        this.target = target;
        this.faults = List.copyOf(faults);
        this.settings = settings;
        this.fenceUri = fenceUri;
        this.random = new Random(scheduleSeed(target, faults, settings));
    }

    /**
     * The seed of a run's own random choices (fault times, victims), from the check's seed, the target
     * and the faults: by their names, not the enums' identity hash codes, so that a seed draws the same
     * schedule in every JVM and {@code --seed} re-runs a run of a sweep.
     */
    static long scheduleSeed(CheckTarget target, List<Fault> faults, CheckSettings settings) {
        return settings.seed() * 1_000_003
                + target.id().hashCode() * 31L
                + faults.stream().map(Fault::name).toList().hashCode();
    }

    /** Runs, calling {@code tick} with the fraction done about once a second. */
    CheckRow run(Consumer<Double> tick) throws InterruptedException {
        String runName = target.id() + "-" + Long.toHexString(random.nextLong() & 0xffffff);
        List<String> locks = settings.lockNames(runName, target.locks(settings));
        try {
            for (int i = 0; i < settings.clients(); i++) {
                startClient(locks);
            }
            for (ClientProcess client : clients) {
                client.awaitReady(CLIENT_START);
            }
            long start = System.nanoTime();
            long end = start + settings.duration().toNanos();
            long gap = settings.faultGap().toNanos();
            long nextFault = start + gap / 2 + (long) (random.nextDouble() * gap);
            long lastFaultOver = start;
            // Every fault of the run is injected at least once, even past the duration on a slow machine.
            while (System.nanoTime() < end || faultsInjected < faults.size()) {
                long now = System.nanoTime();
                tick.accept(Math.min(
                        1.0, (now - start) / (double) settings.duration().toNanos()));
                boolean owed = faultsInjected < faults.size();
                if (!faults.isEmpty()
                        && now >= nextFault
                        && (owed || end - now > target.isolation(settings).toNanos())) {
                    inject(locks);
                    lastFaultOver = System.nanoTime();
                    nextFault = lastFaultOver + gap / 2 + (long) (random.nextDouble() * gap);
                }
                long wait = owed ? Math.max(0, nextFault - now) : Math.max(0, end - now);
                LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(200), wait));
            }
            // Let the consequences of a late fault show (a dead holder's lock granted again) before the end.
            long settled = lastFaultOver + settings.leaseTime().multipliedBy(2).toNanos();
            while (System.nanoTime() - settled < 0) {
                LockSupport.parkNanos(settled - System.nanoTime());
            }
            Duration finishBound = settings.leaseTime().multipliedBy(3).plusSeconds(5);
            // Every client finishes its hold at once; then each is waited for (one bound for them all).
            clients.forEach(ClientProcess::finish);
            long finishDeadline = System.nanoTime() + finishBound.toNanos();
            for (ClientProcess client : clients) {
                client.awaitFinish(finishDeadline);
            }
            long finished = System.nanoTime();
            CheckResult result = Checker.check(history.events(), finished);
            return new CheckRow(
                    target.id(),
                    target.description(),
                    target.naive(),
                    target.peer(),
                    target.strict(),
                    faults,
                    faultsInjected,
                    settings.duration(),
                    settings.seed(),
                    result,
                    Double.NaN);
        } finally {
            clients.forEach(ClientProcess::close);
            routes.forEach(CheckTarget.Route::close);
        }
    }

    private ClientProcess startClient(List<String> locks) {
        int id = clients.size();
        CheckTarget.Route route = target.route(id);
        routes.add(route);
        ClientProcess client = ClientProcess.start(
                id,
                List.of(
                        "subject=" + target.subject(),
                        "uri=" + route.uri(),
                        "fence=" + fenceUri,
                        "locks=" + String.join(",", locks),
                        "lease=" + settings.leaseTime().toMillis(),
                        "work=" + settings.work().toMillis(),
                        "longWork=" + target.longWork(settings).toMillis(),
                        "seed=" + settings.seed()),
                history);
        clients.add(client);
        return client;
    }

    private void inject(List<String> locks) throws InterruptedException {
        Fault fault = faults.get(faultsInjected % faults.size());
        faultsInjected++;
        if (!fault.hitsAClient()) {
            // A server down (or failing over) cuts every client off: leases run out under all holders.
            List<ClientProcess> everyone = List.copyOf(clients);
            everyone.forEach(c -> history.add(HistoryEvent.of(HistoryEvent.Kind.ISOLATED, c.id(), System.nanoTime())));
            try {
                target.hitServer(fault, random);
            } finally {
                everyone.forEach(
                        c -> history.add(HistoryEvent.of(HistoryEvent.Kind.RECONNECTED, c.id(), System.nanoTime())));
            }
            return;
        }
        int victim = pickHolder();
        ClientProcess client = clients.get(victim);
        long isolation = target.isolation(settings).toMillis();
        switch (fault) {
            case KILL -> {
                client.kill();
                routes.get(victim).close();
                startClient(locks).awaitReady(CLIENT_START); // keep the number of clients working
            }
            case PAUSE -> {
                client.stop();
                Thread.sleep(isolation); // the pause itself
                client.resume();
            }
            case CUT, BLACKHOLE -> {
                List<TcpProxy> proxies = routes.get(victim).proxies();
                history.add(HistoryEvent.of(HistoryEvent.Kind.ISOLATED, victim, System.nanoTime()));
                proxies.forEach(fault == Fault.CUT ? TcpProxy::cut : TcpProxy::pause);
                Thread.sleep(isolation); // the outage itself
                proxies.forEach(fault == Fault.CUT ? TcpProxy::restore : TcpProxy::resume);
                history.add(HistoryEvent.of(HistoryEvent.Kind.RECONNECTED, victim, System.nanoTime()));
            }
            default -> throw new IllegalStateException("not a client fault: " + fault);
        }
    }

    /** A client that holds a lock now (waiting up to a second for one), else any live client. */
    private int pickHolder() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() < deadline) {
            List<Integer> holders = new ArrayList<>(history.holders());
            holders.removeIf(id -> !clients.get(id).isAlive());
            if (!holders.isEmpty()) {
                return holders.get(random.nextInt(holders.size()));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        List<Integer> alive = new ArrayList<>();
        for (ClientProcess client : clients) {
            if (client.isAlive()) {
                alive.add(client.id());
            }
        }
        return alive.get(random.nextInt(alive.size()));
    }
}
