package dev.baton.micrometer;

import dev.baton.LockListener;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * Micrometer Observations of Baton locks: with Micrometer Tracing on the registry (its Brave or
 * OpenTelemetry bridge) each acquire and each hold is a span, so a slow request shows the time it
 * waited for a lock; with a meter handler on the registry (Spring Boot adds one) each is also a
 * timer. Register it on a client's options:
 *
 * <pre>{@code
 * BatonObservations observations = BatonObservations.builder(observationRegistry).build();
 * LockClient client = Baton.connect(uri, LockOptions.builder().listener(observations).build());
 * }</pre>
 *
 * <table>
 *   <caption>Observations</caption>
 *   <tr><th>name</th><th>from, to</th><th>low-cardinality keys</th><th>high-cardinality
 *       keys</th><th>events</th></tr>
 *   <tr><td>{@code baton.lock.acquire}</td><td>an acquire call that is not reentrant, from the call
 *       to its outcome: its duration is the wait</td><td>{@code baton.backend}, {@code baton.kind}
 *       ({@code mutex}, {@code read}, {@code write}, {@code permit}), {@code baton.outcome} ({@code
 *       acquired}, {@code timed_out}, {@code interrupted}, {@code failed}, {@code cancelled})</td>
 *       <td>{@code baton.lock.name}; {@code baton.fencing.token} when acquired</td><td>{@code
 *       baton.lock.wait} when the call has to wait</td></tr>
 *   <tr><td>{@code baton.lock.hold}</td><td>a grant, from the grant to the end of its release
 *       (also for a lease lost before it was closed)</td><td>{@code baton.backend}, {@code
 *       baton.kind}, {@code baton.outcome} ({@code released}, {@code lost})</td><td>{@code
 *       baton.lock.name}, {@code baton.fencing.token}</td><td>{@code baton.lock.renewal.failed} per
 *       failed renewal call; {@code baton.lock.lost} when the lease is lost, which also records the
 *       {@link LockLostException} as the observation's error</td></tr>
 * </table>
 *
 * <p>Parents: an acquire's parent is the observation current on the calling thread when the call
 * started (a request's, say), and its hold has the same parent, so both appear side by side under
 * the request's span. Neither is opened in scope: a hold outlives the call that took it and may be
 * released on another thread.
 *
 * <p>Cardinality: the lock's name is a high-cardinality key only (a span attribute, never a meter
 * tag), so meters made from these observations stay bounded whatever names an application uses.
 * {@link Builder#nameTag} adds the low-cardinality key {@code baton.lock} from a function of the
 * name, as {@link BatonMeters.Builder#nameTag} does; make it map names to a bounded set.
 *
 * <p>Guarantees: the observations follow exactly what {@link LockListener} reports; each started
 * observation is stopped once (an acquire when its call ends, a hold when its grant is released or
 * its client closed). They are started and stopped on the thread of the event, without blocking
 * beyond what the registry's handlers do; a failure inside a handler is logged by the client once
 * and never breaks locking. On a no-op registry nothing is recorded. Thread-safe.
 */
public final class BatonObservations implements LockListener {
    static final String ACQUIRE = "baton.lock.acquire";
    static final String HOLD = "baton.lock.hold";

    private final ObservationRegistry registry;
    private final Function<String, String> nameTag;
    /** The acquire calls in progress, and the parent each started under. */
    private final ConcurrentMap<Acquisition, Started> acquires = new ConcurrentHashMap<>();
    /** The grants held. */
    private final ConcurrentMap<Acquisition, Observation> holds = new ConcurrentHashMap<>();

    private record Started(Observation acquire, Observation parent) {}

    private BatonObservations(ObservationRegistry registry, Function<String, String> nameTag) {
        this.registry = registry;
        this.nameTag = nameTag;
    }

    /**
     * Starts observations on {@code registry}.
     *
     * @param registry where the observations are made; its handlers (tracing, meters) decide what
     *     they become
     * @return a builder without a {@code baton.lock} key
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(ObservationRegistry registry) {
        return new Builder(
                Objects.requireNonNull(registry, "BatonObservations: the ObservationRegistry must not be null"));
    }

    /** Builds {@link BatonObservations}; register the result with {@link LockOptions.Builder#listener}. */
    public static final class Builder {
        private final ObservationRegistry registry;
        private Function<String, String> nameTag;

        private Builder(ObservationRegistry registry) {
            this.registry = registry;
        }

        /**
         * Adds the low-cardinality key {@code baton.lock} = {@code nameTag.apply(lockName)} to every
         * observation. Default: none (the name is a high-cardinality key only). The function must map
         * names to a bounded set of values (each value is a series of every meter made from the
         * observations); a {@code null} result is recorded as {@code unknown}.
         *
         * @param nameTag maps a lock name to the value of the {@code baton.lock} key
         * @return this builder
         * @throws NullPointerException if {@code nameTag} is null
         */
        public Builder nameTag(Function<String, String> nameTag) {
            this.nameTag = Objects.requireNonNull(nameTag, "BatonObservations: the name-tag function must not be null");
            return this;
        }

        /**
         * The listener; observations start as locks are used.
         *
         * @return a listener to register with {@link LockOptions.Builder#listener}
         */
        public BatonObservations build() {
            return new BatonObservations(registry, nameTag);
        }
    }

    @Override
    public void acquireStarted(Acquisition acquisition) {
        if (registry.isNoop()) {
            return;
        }
        Observation parent = registry.getCurrentObservation();
        Observation acquire = observation(ACQUIRE, acquisition, parent).start();
        acquires.put(acquisition, new Started(acquire, parent));
    }

    @Override
    public void waitStarted(Acquisition acquisition) {
        Started started = acquires.get(acquisition);
        if (started != null) {
            started.acquire.event(Observation.Event.of("baton.lock.wait", "waiting for the lock"));
        }
    }

    @Override
    public void acquireEnded(Acquisition acquisition, AcquireOutcome outcome, Duration waited) {
        Started started = acquires.remove(acquisition);
        if (started == null) {
            return;
        }
        started.acquire.lowCardinalityKeyValue("baton.outcome", outcome.name().toLowerCase(Locale.ROOT));
        if (outcome == AcquireOutcome.ACQUIRED) {
            String token = token(acquisition);
            started.acquire.highCardinalityKeyValue("baton.fencing.token", token);
            started.acquire.stop();
            holds.put(
                    acquisition,
                    observation(HOLD, acquisition, started.parent)
                            .highCardinalityKeyValue("baton.fencing.token", token)
                            .start());
        } else {
            started.acquire.stop();
        }
    }

    @Override
    public void renewalFailed(Acquisition acquisition, Throwable cause) {
        Observation hold = holds.get(acquisition);
        if (hold != null) {
            hold.event(Observation.Event.of("baton.lock.renewal.failed", "renewal failed: " + cause));
        }
    }

    @Override
    public void leaseLost(Acquisition acquisition, LockLostException cause) {
        Observation hold = holds.get(acquisition);
        if (hold != null) {
            hold.lowCardinalityKeyValue("baton.outcome", "lost");
            hold.event(Observation.Event.of("baton.lock.lost", "lease lost"));
            hold.error(cause);
        }
    }

    @Override
    public void leaseReleased(Acquisition acquisition, Duration held) {
        Observation hold = holds.remove(acquisition);
        if (hold != null) {
            if (hold.getContext().getLowCardinalityKeyValue("baton.outcome") == null) {
                hold.lowCardinalityKeyValue("baton.outcome", "released");
            }
            hold.stop();
        }
    }

    private Observation observation(String name, Acquisition acquisition, Observation parent) {
        Observation observation = Observation.createNotStarted(name, registry)
                .parentObservation(parent)
                .lowCardinalityKeyValue("baton.backend", acquisition.backend())
                .lowCardinalityKeyValue("baton.kind", acquisition.kind().name().toLowerCase(Locale.ROOT))
                .highCardinalityKeyValue("baton.lock.name", acquisition.lock());
        if (nameTag != null) {
            String tag = nameTag.apply(acquisition.lock());
            observation.lowCardinalityKeyValue("baton.lock", tag == null ? "unknown" : tag);
        }
        return observation;
    }

    private static String token(Acquisition acquisition) {
        return acquisition.fencingToken().isPresent()
                ? Long.toString(acquisition.fencingToken().getAsLong())
                : "none";
    }

    @Override
    public String toString() {
        return "BatonObservations[" + registry.getClass().getSimpleName() + (nameTag == null ? "" : ", lock tag") + "]";
    }
}
