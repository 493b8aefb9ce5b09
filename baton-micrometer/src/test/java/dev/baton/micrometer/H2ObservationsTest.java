package dev.baton.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.LockOptions;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link BatonObservations} records against a real backend (the JDBC table strategy over an
 * in-process H2 database): an observation per acquire and per hold, their keys, their events and
 * their parents; through Micrometer's test registry and its test tracer.
 */
@Timeout(60)
class H2ObservationsTest {
    private static final String DATABASE = "jdbc:h2:mem:observations-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private static final String TABLE = "observed_locks";
    private static final String URI = DATABASE + ";USER=sa;PASSWORD=baton;strategy=table;table=" + TABLE;
    private static Connection outside;

    private final List<LockClient> clients = new ArrayList<>();
    private final String name = "invoice-" + UUID.randomUUID();

    @BeforeAll
    static void createDatabase() throws SQLException {
        outside = DriverManager.getConnection(DATABASE, "sa", "baton");
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        try (Statement statement = outside.createStatement()) {
            statement.execute("SHUTDOWN");
        }
        outside.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient client(LockOptions.Builder options) {
        LockClient client = Baton.connect(URI, options.build());
        clients.add(client);
        return client;
    }

    private LockClient client(LockListener... listeners) {
        LockOptions.Builder options = LockOptions.builder();
        for (LockListener listener : listeners) {
            options.listener(listener);
        }
        return client(options);
    }

    /** Tells when an acquire call of the client starts to wait, on the wall clock the tracer reads. */
    private static final class WaitSeen implements LockListener {
        final CompletableFuture<Instant> waiting = new CompletableFuture<>();

        @Override
        public void waitStarted(String lock, String backend) {
            waiting.complete(Instant.ofEpochMilli(System.currentTimeMillis()));
        }
    }

    /** Records every observation's context and the names of its events, as a tracer would see them. */
    private static final class Recording implements ObservationHandler<Observation.Context> {
        final Map<Observation.Context, List<String>> events = new ConcurrentHashMap<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStart(Observation.Context context) {
            events.put(context, new CopyOnWriteArrayList<>());
        }

        @Override
        public void onEvent(Observation.Event event, Observation.Context context) {
            events.get(context).add(event.getName());
        }

        Observation.Context hold() {
            return events.keySet().stream()
                    .filter(context -> context.getName().equals("baton.lock.hold"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no hold among " + events.keySet()));
        }
    }

    @Test
    void aContendedAcquireIsASpanThatShowsTheWaitUnderTheRequestBesideItsHold() throws Exception {
        SimpleTracer tracer = new SimpleTracer();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
        BatonObservations observations = BatonObservations.builder(registry).build();
        LockClient holderClient = client(observations);
        WaitSeen waitSeen = new WaitSeen();
        LockClient waiterClient = client(observations, waitSeen);

        Lease held = holderClient.lock(name).acquire(KitTime.grant());
        CompletableFuture<Long> token = CompletableFuture.supplyAsync(() -> {
            Observation request = Observation.start("request", registry);
            try (Observation.Scope scope = request.openScope()) {
                try (Lease lease = waiterClient.lock(name).acquire(KitTime.bound(KitTime.LEASE))) {
                    return lease.fencingToken();
                }
            } finally {
                request.stop();
            }
        });
        Instant waitSeenAt = Await.result(waitSeen.waiting, KitTime.grant());
        Instant releaseStartedAt = Instant.ofEpochMilli(System.currentTimeMillis());
        held.close();
        long waiterToken = Await.result(token, KitTime.grant());
        String tree = SpanTree.render(tracer.getSpans());
        System.out.println("Span tree of a contended acquire on " + holderClient.backendName() + ":\n" + tree);

        SimpleSpan request = span(tracer, "request", null);
        List<SimpleSpan> acquires = spans(tracer, "baton.lock.acquire");
        assertThat(acquires).hasSize(2);
        SimpleSpan waited = acquires.stream()
                .filter(span -> span.getParentId().equals(request.getSpanId()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no acquire under the request:\n" + tree));
        assertThat(waited.getTags())
                .containsEntry("baton.outcome", "acquired")
                .containsEntry("baton.kind", "mutex")
                .containsEntry("baton.backend", waiterClient.backendName())
                .containsEntry("baton.lock.name", name)
                .containsEntry("baton.fencing.token", Long.toString(waiterToken));
        assertThat(waited.getEvents()).extracting(event -> event.getValue()).containsExactly("waiting for the lock");
        assertThat(waited.getStartTimestamp())
                .as("the acquire span starts before the wait\n" + tree)
                .isBeforeOrEqualTo(waitSeenAt);
        assertThat(waited.getEndTimestamp())
                .as("the acquire span lasts until the holder released\n" + tree)
                .isAfterOrEqualTo(releaseStartedAt);

        SimpleSpan hold = span(tracer, "baton.lock.hold", request.getSpanId());
        assertThat(hold.getTags())
                .containsEntry("baton.outcome", "released")
                .containsEntry("baton.fencing.token", Long.toString(waiterToken))
                .containsEntry("baton.lock.name", name);
        assertThat(hold.getStartTimestamp()).isAfterOrEqualTo(waited.getEndTimestamp());
        assertThat(tracer.getSpans())
                .as("every span ended\n" + tree)
                .allMatch(span -> span.getEndTimestamp().toEpochMilli() > 0);
        SimpleSpan firstHold = spans(tracer, "baton.lock.hold").stream()
                .filter(span -> !span.getParentId().equals(request.getSpanId()))
                .findFirst()
                .orElseThrow();
        assertThat(firstHold.getTags()).containsEntry("baton.fencing.token", Long.toString(held.fencingToken()));
        assertThat(waiterToken).isGreaterThan(held.fencingToken());
    }

    @Test
    void aTryAcquireOfATakenLockIsTimedOutAndStartsNoHold() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        LockClient holder = client(LockOptions.builder());
        LockClient other = client(BatonObservations.builder(registry).build());
        try (Lease lease = holder.lock(name).acquire(KitTime.grant())) {
            assertThat(other.lock(name).tryAcquire()).isEmpty();
        }
        assertThat(registry)
                .hasNumberOfObservationsEqualTo(1)
                .hasSingleObservationThat()
                .hasNameEqualTo("baton.lock.acquire")
                .hasBeenStarted()
                .hasBeenStopped()
                .hasLowCardinalityKeyValue("baton.outcome", "timed_out")
                .hasHighCardinalityKeyValue("baton.lock.name", name)
                .doesNotHaveHighCardinalityKeyValueWithKey("baton.fencing.token")
                .doesNotHaveLowCardinalityKeyValueWithKey("baton.lock");
    }

    @Test
    void aLossIsAnEventAndTheErrorOfTheHoldWhichEndsWhenTheLeaseIsClosed() throws Exception {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Recording recording = new Recording();
        registry.observationConfig().observationHandler(recording);
        LockClient client = client(LockOptions.builder()
                .leaseTime(Duration.ofMillis(900))
                .listener(BatonObservations.builder(registry).build()));
        Lease lease = client.lock(name).acquire(KitTime.grant());
        CompletableFuture<Exception> told = new CompletableFuture<>();
        lease.onLost(told::complete);
        deleteFromOutside(name);
        Exception lost = Await.result(told, KitTime.bound(Duration.ofMillis(900)));
        Observation.Context hold = recording.hold();
        Await.condition("the loss on the hold", KitTime.grant(), () -> hold.getError() != null);
        assertThat(hold.getError()).isSameAs(lost);
        assertThat(recording.events.get(hold)).containsExactly("baton.lock.lost");
        lease.close();
        assertThat(registry)
                .hasObservationWithNameEqualTo("baton.lock.hold")
                .that()
                .hasBeenStopped()
                .hasLowCardinalityKeyValue("baton.outcome", "lost")
                .hasHighCardinalityKeyValue("baton.fencing.token", Long.toString(lease.fencingToken()));
    }

    @Test
    void aFailedRenewalIsAnEventOfTheHold() throws Exception {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Recording recording = new Recording();
        registry.observationConfig().observationHandler(recording);
        LockClient client = client(LockOptions.builder()
                .leaseTime(Duration.ofMillis(900))
                .listener(BatonObservations.builder(registry).build()));
        try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
            List<String> events = recording.events.get(recording.hold());
            try (Statement statement = outside.createStatement()) {
                statement.execute("ALTER TABLE " + TABLE + " RENAME TO " + TABLE + "_away");
            }
            try {
                Await.condition(
                        "a failed renewal on the hold",
                        KitTime.bound(Duration.ofMillis(900)),
                        () -> events.contains("baton.lock.renewal.failed"),
                        events::toString);
            } finally {
                try (Statement statement = outside.createStatement()) {
                    statement.execute("ALTER TABLE " + TABLE + "_away RENAME TO " + TABLE);
                }
            }
        }
    }

    @Test
    void theLockNameIsALowCardinalityKeyOnlyWhenAskedFor() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        LockClient client = client(BatonObservations.builder(registry)
                .nameTag(lock -> lock.substring(0, lock.indexOf('-')))
                .build());
        client.lock(name).acquire(KitTime.grant()).close();
        assertThat(registry)
                .hasObservationWithNameEqualTo("baton.lock.acquire")
                .that()
                .hasLowCardinalityKeyValue("baton.lock", "invoice")
                .hasHighCardinalityKeyValue("baton.lock.name", name);
        assertThat(registry)
                .hasObservationWithNameEqualTo("baton.lock.hold")
                .that()
                .hasLowCardinalityKeyValue("baton.lock", "invoice")
                .hasLowCardinalityKeyValue("baton.outcome", "released")
                .doesNotHaveLowCardinalityKeyValue(KeyValue.of("baton.lock", name));
    }

    @Test
    void aNoopRegistryRecordsNothingAndLockingWorks() {
        LockClient client =
                client(BatonObservations.builder(ObservationRegistry.NOOP).build());
        try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    private static SimpleSpan span(SimpleTracer tracer, String name, String parentId) {
        return tracer.getSpans().stream()
                .filter(span -> span.getName().equals(name))
                .filter(span -> parentId == null || parentId.equals(span.getParentId()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "no span " + name + " under " + parentId + " in\n" + SpanTree.render(tracer.getSpans())));
    }

    private static List<SimpleSpan> spans(SimpleTracer tracer, String name) {
        return tracer.getSpans().stream()
                .filter(span -> span.getName().equals(name))
                .toList();
    }

    private static void deleteFromOutside(String lock) {
        try (PreparedStatement delete = outside.prepareStatement("DELETE FROM " + TABLE + " WHERE lock_name = ?")) {
            delete.setString(1, lock);
            if (delete.executeUpdate() != 1) {
                throw new AssertionError("no row of " + lock + " in " + TABLE);
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}
