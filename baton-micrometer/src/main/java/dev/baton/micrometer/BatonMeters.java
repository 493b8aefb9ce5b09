package dev.baton.micrometer;

import dev.baton.LockListener;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Micrometer meters for Baton locks. Register it on a client's options and every lock of that client
 * is measured:
 *
 * <pre>{@code
 * BatonMeters meters = BatonMeters.builder(registry).build();
 * LockClient client = Baton.connect(uri, LockOptions.builder().listener(meters).build());
 * }</pre>
 *
 * <table>
 *   <caption>Meters (every one tagged {@code backend}, e.g. {@code jdbc-table (H2)}, and {@code lock}
 *   when a name tag is set)</caption>
 *   <tr><th>name</th><th>type</th><th>unit</th><th>other tags</th><th>what it measures</th></tr>
 *   <tr><td>{@code baton.lock.wait}</td><td>timer</td><td>seconds</td><td>{@code outcome}: {@code
 *       acquired}, {@code timed_out}, {@code interrupted}, {@code failed}</td><td>acquire calls, from
 *       the call to its outcome; {@code tryAcquire()} that finds the lock taken is {@code timed_out};
 *       reentrant acquires are not counted</td></tr>
 *   <tr><td>{@code baton.lock.held}</td><td>timer</td><td>seconds</td><td></td><td>grants, from the
 *       grant to the end of its release (also for a lease lost before it was closed)</td></tr>
 *   <tr><td>{@code baton.lock.renewals}</td><td>counter</td><td>renewals</td><td></td><td>renewals the
 *       backend answered</td></tr>
 *   <tr><td>{@code baton.lock.renewal.failures}</td><td>counter</td><td>renewals</td><td></td><td>renewal
 *       calls that failed (retried while the lease is valid)</td></tr>
 *   <tr><td>{@code baton.lock.lost}</td><td>counter</td><td>leases</td><td></td><td>leases lost (their
 *       {@code onLost} listeners were told)</td></tr>
 *   <tr><td>{@code baton.lock.leases.held}</td><td>gauge</td><td>leases</td><td></td><td>grants taken
 *       and not yet released, lost ones included until they are closed</td></tr>
 *   <tr><td>{@code baton.lock.waiting}</td><td>gauge</td><td>threads</td><td></td><td>acquire calls
 *       waiting now</td></tr>
 * </table>
 *
 * <p>Cardinality: by default no meter carries the lock's name, so the number of series is bounded by
 * the backends and outcomes whatever names an application uses. {@link Builder#nameTag} adds a
 * {@code lock} tag from a function of the name; make it map names to a bounded set (for example
 * {@code name -> name.replaceAll("-\\d+$", "")} to turn {@code invoice-42} into {@code invoice}).
 *
 * <p>Guarantees: the meters see exactly what {@link LockListener} reports; they are updated on the
 * thread of the event, without blocking (a map look-up and an atomic update), so they never hold up
 * locking or renewal. Gauges of one registry are shared: several instances (one per client, say) on
 * the same registry add up into the same gauges, as their timers and counters do. A failure inside
 * Micrometer or the name-tag function is logged by the client once and never breaks locking.
 * Thread-safe.
 */
public final class BatonMeters implements LockListener {

    /** Gauge values by registry, so that instances on one registry share (and add up in) a gauge. */
    private static final Map<MeterRegistry, ConcurrentMap<MeterKey, AtomicLong>> GAUGES =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final MeterRegistry registry;
    private final Function<String, String> nameTag;
    private final ConcurrentMap<MeterKey, AtomicLong> gauges;
    private final ConcurrentMap<MeterKey, Timer> timers = new ConcurrentHashMap<>();
    private final ConcurrentMap<MeterKey, Counter> counters = new ConcurrentHashMap<>();

    private BatonMeters(MeterRegistry registry, Function<String, String> nameTag) {
        this.registry = registry;
        this.nameTag = nameTag;
        this.gauges = GAUGES.computeIfAbsent(registry, r -> new ConcurrentHashMap<>());
    }

    /**
     * Starts meters on {@code registry}.
     *
     * @param registry where the meters are registered; meters of several {@code BatonMeters} on one
     *     registry are shared
     * @return a builder without a {@code lock} tag
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(Objects.requireNonNull(registry, "BatonMeters: the MeterRegistry must not be null"));
    }

    /** Builds {@link BatonMeters}; register the result with {@link LockOptions.Builder#listener}. */
    public static final class Builder {
        private final MeterRegistry registry;
        private Function<String, String> nameTag;

        private Builder(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * Tags every meter with {@code lock} = {@code nameTag.apply(lockName)}. Default: no {@code
         * lock} tag. The function must map names to a bounded set of values (each value is a series
         * of every meter); a {@code null} result is recorded as {@code unknown}.
         *
         * @param nameTag maps a lock name to the value of the {@code lock} tag
         * @return this builder
         * @throws NullPointerException if {@code nameTag} is null
         */
        public Builder nameTag(Function<String, String> nameTag) {
            this.nameTag = Objects.requireNonNull(nameTag, "BatonMeters: the name-tag function must not be null");
            return this;
        }

        /**
         * The listener; meters appear on the registry as locks are used.
         *
         * @return a listener to register with {@link LockOptions.Builder#listener}
         */
        public BatonMeters build() {
            return new BatonMeters(registry, nameTag);
        }
    }

    @Override
    public void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration waited) {
        String outcomeTag = outcome.name().toLowerCase(Locale.ROOT);
        timers.computeIfAbsent(
                        new MeterKey("baton.lock.wait", backend, lockTag(lock), outcomeTag),
                        key -> Timer.builder(key.name)
                                .description("Acquire calls of Baton locks, from the call to its outcome")
                                .tags(key.tags())
                                .tag("outcome", outcomeTag)
                                .register(registry))
                .record(waited);
        if (outcome == AcquireOutcome.ACQUIRED) {
            gauge("baton.lock.leases.held", backend, lock, "leases", "Baton leases held and not yet released")
                    .incrementAndGet();
        }
    }

    @Override
    public void waitStarted(String lock, String backend) {
        waiting(backend, lock).incrementAndGet();
    }

    @Override
    public void waitEnded(String lock, String backend) {
        waiting(backend, lock).decrementAndGet();
    }

    @Override
    public void leaseReleased(String lock, String backend, Duration held) {
        timers.computeIfAbsent(
                        new MeterKey("baton.lock.held", backend, lockTag(lock), null), key -> Timer.builder(key.name)
                                .description("Baton leases, from the grant to the end of its release")
                                .tags(key.tags())
                                .register(registry))
                .record(held);
        gauge("baton.lock.leases.held", backend, lock, "leases", "Baton leases held and not yet released")
                .decrementAndGet();
    }

    @Override
    public void renewed(String lock, String backend) {
        counter("baton.lock.renewals", backend, lock, "renewals", "Renewals of Baton leases the backend answered")
                .increment();
    }

    @Override
    public void renewalFailed(String lock, String backend, Throwable cause) {
        counter(
                        "baton.lock.renewal.failures",
                        backend,
                        lock,
                        "renewals",
                        "Renewal calls of Baton leases that failed (retried while the lease is valid)")
                .increment();
    }

    @Override
    public void leaseLost(String lock, String backend, LockLostException cause) {
        counter("baton.lock.lost", backend, lock, "leases", "Baton leases lost while held")
                .increment();
    }

    private AtomicLong waiting(String backend, String lock) {
        return gauge("baton.lock.waiting", backend, lock, "threads", "Acquire calls of Baton locks waiting now");
    }

    private Counter counter(String name, String backend, String lock, String unit, String description) {
        return counters.computeIfAbsent(
                new MeterKey(name, backend, lockTag(lock), null), key -> Counter.builder(key.name)
                        .description(description)
                        .baseUnit(unit)
                        .tags(key.tags())
                        .register(registry));
    }

    private AtomicLong gauge(String name, String backend, String lock, String unit, String description) {
        MeterKey id = new MeterKey(name, backend, lockTag(lock), null);
        AtomicLong value = gauges.get(id);
        if (value != null) {
            return value;
        }
        return gauges.computeIfAbsent(id, key -> {
            AtomicLong created = new AtomicLong();
            Gauge.builder(key.name, created, AtomicLong::get)
                    .description(description)
                    .baseUnit(unit)
                    .tags(key.tags())
                    .strongReference(true)
                    .register(registry);
            return created;
        });
    }

    private String lockTag(String lock) {
        if (nameTag == null) {
            return null;
        }
        String tag = nameTag.apply(lock);
        return tag == null ? "unknown" : tag;
    }

    /** A meter's name and the tags BatonMeters sets itself ({@code outcome} apart). */
    private record MeterKey(String name, String backend, String lock, String outcome) {
        Tags tags() {
            Tags tags = Tags.of("backend", backend);
            return lock == null ? tags : tags.and("lock", lock);
        }
    }

    @Override
    public String toString() {
        return "BatonMeters[" + registry.getClass().getSimpleName() + (nameTag == null ? "" : ", lock tag") + "]";
    }
}
