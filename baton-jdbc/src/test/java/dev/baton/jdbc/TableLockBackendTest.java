package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.ReconnectingPool;
import dev.baton.jdbc.internal.TableNames;
import dev.baton.jdbc.row.BatchRenewal;
import dev.baton.jdbc.row.RowProtocol;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The table strategy's wire protocol, checked directly on the SPI against a real database. A
 * subclass supplies the database; every test uses its own lock table, so tests never see each
 * other's rows and "a fresh database" is just a fresh table name.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
abstract class TableLockBackendTest {
    /** Long enough that nothing expires by accident during a test. */
    static final Duration LONG = Duration.ofSeconds(30);
    /** Short enough that waiting for expiry keeps the tests quick. */
    static final Duration SHORT = Duration.ofMillis(300);

    static final LockOptions OPTIONS =
            LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();

    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

    /** The database's dialect. */
    abstract Dialect dialect();

    /** A Baton URL for the test database with these Baton parameters, credentials included. */
    abstract String url(String table, boolean createSchema);

    /** The same URL with a wrong password. */
    abstract String urlWithWrongPassword();

    /** A plain, unpooled DataSource on the test database, as an application might pass one. */
    abstract DataSource dataSource();

    @AfterEach
    void closeResources() {
        List<AutoCloseable> toClose = new ArrayList<>(resources);
        Collections.reverse(toClose);
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception e) {
                // best effort after a failed test
            }
        }
    }

    <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    static String freshTable() {
        return "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
    }

    static String owner() {
        byte[] bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    static String lockName() {
        return "lock-" + UUID.randomUUID();
    }

    JdbcLockBackend backend(String table) {
        return backend(table, true);
    }

    JdbcLockBackend backend(String table, boolean createSchema) {
        return track((JdbcLockBackend) new JdbcLockBackendProvider().create(url(table, createSchema), OPTIONS));
    }

    static LockRequest exclusive(String name, String owner, Duration lease) {
        return LockRequest.builder(name, owner, LockKind.MUTEX, lease).build();
    }

    static LockRequest shared(String name, String owner, Duration lease) {
        return LockRequest.builder(name, owner, LockKind.READ, lease).build();
    }

    /**
     * The most a test waits for a grant that a {@link #SHORT} lease's expiry, or a release, frees on an
     * idle machine.
     */
    static final Duration FREED = SHORT.plus(KitTime.TAKE_OVER);

    /** Tries until granted, within {@link #FREED}; the pause only paces the polling. */
    static Grant awaitGrant(Supplier<Optional<Grant>> attempt) {
        return awaitGrant(attempt, FREED);
    }

    /**
     * Tries until granted, within {@code idle} lengthened by the machine's stall meanwhile; the pause
     * only paces the polling.
     */
    static Grant awaitGrant(Supplier<Optional<Grant>> attempt, Duration idle) {
        KitTime.Stopwatch waited = KitTime.stopwatch();
        while (true) {
            Optional<Grant> grant = attempt.get();
            if (grant.isPresent()) {
                return grant.get();
            }
            if (waited.hasPassed(idle.plus(KitTime.SLACK))) {
                throw new AssertionError("not granted within " + waited);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** Waits until {@code condition} holds, within {@link #FREED}. */
    static void await(String what, BooleanSupplier condition) {
        Await.condition(what, KitTime.bound(FREED), condition);
    }

    // ---------------------------------------------------------------------------------------------
    // Exclusive mode

    @Test
    void exclusiveExcludesAnotherOwnerUntilReleased() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        String a = owner();
        String b = owner();

        Grant first = backend.tryAcquire(exclusive(name, a, LONG)).orElseThrow();
        assertThat(first.ownerId()).isEqualTo(a);
        assertThat(first.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(backend.tryAcquire(exclusive(name, b, LONG))).isEmpty();
        assertThat(backend.tryAcquire(shared(name, b, LONG))).isEmpty();
        assertThat(backend.tryAcquire(exclusive(lockName(), b, LONG)))
                .as("another name is independent")
                .isPresent();

        assertThat(backend.release(first)).isTrue();
        assertThat(backend.release(first)).as("idempotent").isFalse();
        Grant second = backend.tryAcquire(exclusive(name, b, LONG)).orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    }

    @Test
    void expiredRowIsTakenOverAndTheOldOwnerCanNeitherRenewNorRelease() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant old = backend.tryAcquire(exclusive(name, owner(), SHORT)).orElseThrow();
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG)))
                .as("not expired yet")
                .isEmpty();

        String newOwner = owner();
        Grant taken = awaitGrant(() -> backend.tryAcquire(exclusive(name, newOwner, LONG)));

        assertThat(taken.fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(taken.expiresAt()).isAfter(old.expiresAt());
        assertThat(backend.renew(old, LONG)).as("lost").isEmpty();
        assertThat(backend.release(old))
                .as("never touches the new owner's grant")
                .isFalse();
        assertThat(backend.inspect(name))
                .hasValueSatisfying(info -> assertThat(info.owners()).containsExactly(newOwner));
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG))).isEmpty();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossReleasesTakeoversAndModes() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Grant writer = backend.tryAcquire(exclusive(name, owner(), LONG)).orElseThrow();
            tokens.add(writer.fencingToken());
            assertThat(backend.release(writer)).isTrue();
            Grant readerOne = backend.tryAcquire(shared(name, owner(), LONG)).orElseThrow();
            Grant readerTwo = backend.tryAcquire(shared(name, owner(), LONG)).orElseThrow();
            tokens.add(readerOne.fencingToken());
            tokens.add(readerTwo.fencingToken());
            assertThat(backend.release(readerOne)).isTrue();
            assertThat(backend.release(readerTwo)).isTrue();
        }
        Grant expiring = backend.tryAcquire(exclusive(name, owner(), SHORT)).orElseThrow();
        tokens.add(expiring.fencingToken());
        tokens.add(awaitGrant(() -> backend.tryAcquire(exclusive(name, owner(), LONG)))
                .fencingToken());

        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token #%d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void renewExtendsOnTheDatabaseClockAndAnExpiredGrantCannotBeRenewed() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant grant = backend.tryAcquire(exclusive(name, owner(), SHORT)).orElseThrow();

        Grant renewed = backend.renew(grant, LONG).orElseThrow();
        assertThat(renewed.expiresAt()).isAfter(grant.expiresAt());
        assertThat(renewed.fencingToken()).isEqualTo(grant.fencingToken());
        assertThat(backend.inspect(name))
                .hasValueSatisfying(info -> assertThat(info.expiresAt()).isAfter(grant.expiresAt()));

        Grant expiring =
                backend.tryAcquire(exclusive(lockName(), owner(), SHORT)).orElseThrow();
        await("the grant to expire on the database", () -> backend.inspect(expiring.name())
                .isEmpty());
        assertThat(backend.renew(expiring, LONG))
                .as("expired, even though nobody took it")
                .isEmpty();
    }

    @Test
    void renewAllRenewsHeldGrantsTogetherAndReportsEachOneNoLongerHeld() {
        JdbcLockBackend backend = backend(freshTable());
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            grants.add(backend.tryAcquire(exclusive(lockName(), owner(), SHORT)).orElseThrow());
        }
        grants.add(backend.tryAcquire(shared(lockName(), owner(), SHORT)).orElseThrow());
        Grant held = grants.get(0);
        grants.add(Grant.builder(held.name(), owner(), LockMode.EXCLUSIVE)
                .fencingToken(held.fencingToken())
                .expiresAt(held.expiresAt())
                .build());
        backend.release(grants.get(2));

        List<Optional<Grant>> renewed = backend.renewAll(grants, LONG);
        assertThat(renewed).hasSize(grants.size());
        for (int i : List.of(0, 1, 3, 4, 5)) {
            assertThat(renewed.get(i)).as("grant %d, held", i).hasValueSatisfying(grant -> assertThat(
                            grant.fencingToken())
                    .isEqualTo(grants.get(i).fencingToken()));
        }
        assertThat(renewed.get(2)).as("released before").isEmpty();
        assertThat(renewed.get(6)).as("a stranger's grant").isEmpty();
        for (int i : List.of(0, 1, 3, 4, 5)) {
            Grant grant = grants.get(i);
            assertThat(backend.inspect(grant.name()))
                    .as("grant %d renewed to the long lease on the database", i)
                    .hasValueSatisfying(info -> assertThat(info.expiresAt())
                            .isAfter(grant.expiresAt().plus(LONG.minus(SHORT).dividedBy(2))));
        }
    }

    /**
     * A grant lost among a hundred must not send the other 99 back one statement each: on a 10 ms
     * link that is a second of renewals for one call, longer than a 1 s lease. Counted in
     * statements, not timed.
     */
    @Test
    void renewAllFindsOneLostGrantAmongAHundredInAFewStatementsNotOneEach() {
        CountingDataSource counting = new CountingDataSource(dataSource());
        JdbcLockBackend backend = (JdbcLockBackend) track(new JdbcLockBackend(
                Strategy.TABLE,
                counting,
                null,
                TableNames.of(freshTable()),
                true,
                OPTIONS.toBuilder().fair(false).build(),
                null,
                false));
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < BatchRenewal.SIZE; i++) {
            grants.add(backend.tryAcquire(exclusive(lockName(), owner(), LONG)).orElseThrow());
        }
        int lost = 37;
        backend.release(grants.get(lost));
        counting.takeUpdates();

        List<Optional<Grant>> renewed = backend.renewAll(grants, LONG);
        int updates = counting.takeUpdates();

        for (int i = 0; i < grants.size(); i++) {
            assertThat(renewed.get(i).isPresent()).as("grant %d renewed", i).isEqualTo(i != lost);
        }
        // Halving the call: one statement, then two per level down to the lost grant (7 levels).
        assertThat(updates)
                .as("UPDATE statements to renew %d grants, one of them lost", grants.size())
                .isLessThanOrEqualTo(15);
    }

    @Test
    void releaseOfSomeoneElsesGrantDoesNothing() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant held = backend.tryAcquire(exclusive(name, owner(), LONG)).orElseThrow();
        Grant stranger = Grant.builder(name, owner(), LockMode.EXCLUSIVE)
                .fencingToken(held.fencingToken())
                .expiresAt(held.expiresAt())
                .build();

        assertThat(backend.release(stranger)).isFalse();
        assertThat(backend.renew(stranger, LONG)).isEmpty();
        assertThat(backend.release(Grant.builder(name, owner(), LockMode.SHARED)
                        .fencingToken(0)
                        .expiresAt(held.expiresAt())
                        .build()))
                .isFalse();
        assertThat(backend.inspect(name))
                .hasValueSatisfying(info -> assertThat(info.owners()).containsExactly(held.ownerId()));
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG))).isEmpty();
    }

    @Test
    void abandonRemovesWhatAnAttemptLeftAndIsSafeWhenNothingExists() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        LockRequest writer = exclusive(name, owner(), LONG);
        backend.tryAcquire(writer).orElseThrow();

        backend.abandon(writer);
        assertThat(backend.inspect(name)).isEmpty();
        backend.abandon(writer);
        backend.abandon(shared(lockName(), owner(), LONG));

        LockRequest reader = shared(name, owner(), LONG);
        backend.tryAcquire(reader).orElseThrow();
        backend.abandon(reader);
        assertThat(backend.inspect(name)).isEmpty();
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG))).isPresent();
    }

    // ---------------------------------------------------------------------------------------------
    // Shared mode

    @Test
    void readersCoexistAndExcludeAWriterUntilTheLastOneLeaves() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant one = backend.tryAcquire(shared(name, owner(), LONG)).orElseThrow();
        Grant two = backend.tryAcquire(shared(name, owner(), LONG)).orElseThrow();

        assertThat(two.mode()).isEqualTo(LockMode.SHARED);
        assertThat(two.fencingToken()).isGreaterThan(one.fencingToken());
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG))).isEmpty();
        LockInfo info = backend.inspect(name).orElseThrow();
        assertThat(info.mode()).isEqualTo(LockMode.SHARED);
        assertThat(info.owners()).containsExactly(one.ownerId(), two.ownerId());
        assertThat(info.fencingToken()).isEqualTo(two.fencingToken());

        assertThat(backend.release(one)).isTrue();
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG))).isEmpty();
        assertThat(backend.inspect(name))
                .hasValueSatisfying(left -> assertThat(left.owners()).containsExactly(two.ownerId()));

        assertThat(backend.release(two)).isTrue();
        assertThat(backend.release(two)).isFalse();
        Grant writer = backend.tryAcquire(exclusive(name, owner(), LONG)).orElseThrow();
        assertThat(writer.fencingToken()).isGreaterThan(two.fencingToken());
    }

    @Test
    void aWriterExcludesReaders() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant writer = backend.tryAcquire(exclusive(name, owner(), LONG)).orElseThrow();

        assertThat(backend.tryAcquire(shared(name, owner(), LONG))).isEmpty();
        assertThat(backend.inspect(name)).hasValueSatisfying(info -> {
            assertThat(info.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(info.fencingToken()).isEqualTo(writer.fencingToken());
        });

        assertThat(backend.release(writer)).isTrue();
        assertThat(backend.tryAcquire(shared(name, owner(), LONG))).isPresent();
    }

    @Test
    void aReleasingReaderShrinksTheSharedExpiryToTheRemainingReaders() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant longReader = backend.tryAcquire(shared(name, owner(), LONG)).orElseThrow();
        Grant shortReader = backend.tryAcquire(shared(name, owner(), SHORT)).orElseThrow();
        Grant longest =
                backend.tryAcquire(shared(name, owner(), LONG.plusSeconds(30))).orElseThrow();
        assertThat(backend.inspect(name).orElseThrow().expiresAt()).isAfter(longReader.expiresAt());

        assertThat(backend.release(longest)).isTrue();
        assertThat(backend.inspect(name).orElseThrow().expiresAt())
                .as("the latest of the readers left")
                .isBefore(longest.expiresAt())
                .isAfter(shortReader.expiresAt());

        await(
                "the short reader to expire",
                () -> backend.inspect(name).orElseThrow().owners().size() == 1);
        assertThat(backend.renew(shortReader, LONG)).as("its own row expired").isEmpty();
        assertThat(backend.release(longReader)).isTrue();
        assertThat(backend.inspect(name))
                .as("expired readers do not keep the lock")
                .isEmpty();
        assertThat(backend.tryAcquire(exclusive(name, owner(), LONG))).isPresent();
    }

    @Test
    void expiredReadersAreTakenOverByAWriterAndLoseTheirGrants() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant reader = backend.tryAcquire(shared(name, owner(), SHORT)).orElseThrow();
        Grant renewed = backend.renew(reader, SHORT).orElseThrow();
        assertThat(renewed.expiresAt()).isAfterOrEqualTo(reader.expiresAt());

        String writerOwner = owner();
        Grant writer = awaitGrant(() -> backend.tryAcquire(exclusive(name, writerOwner, LONG)));

        assertThat(writer.fencingToken()).isGreaterThan(reader.fencingToken());
        assertThat(backend.renew(reader, LONG)).isEmpty();
        assertThat(backend.release(reader)).isFalse();
        assertThat(backend.inspect(name)).hasValueSatisfying(info -> {
            assertThat(info.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(info.owners()).containsExactly(writerOwner);
        });
        assertThat(backend.release(writer)).isTrue();

        Grant expiredWriter =
                backend.tryAcquire(exclusive(name, owner(), SHORT)).orElseThrow();
        Grant newReader = awaitGrant(() -> backend.tryAcquire(shared(name, owner(), LONG)));
        assertThat(newReader.fencingToken()).isGreaterThan(expiredWriter.fencingToken());
        assertThat(backend.renew(expiredWriter, LONG)).isEmpty();
    }

    @Test
    void sharedRenewalKeepsTheReaderAndTheNameRowTogether() {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        Grant reader = backend.tryAcquire(shared(name, owner(), SHORT)).orElseThrow();

        Grant renewed = backend.renew(reader, LONG).orElseThrow();

        assertThat(renewed.expiresAt()).isAfter(reader.expiresAt());
        assertThat(renewed.fencingToken()).isEqualTo(reader.fencingToken());
        assertThat(backend.inspect(name).orElseThrow().expiresAt())
                .as("the name row lives as long as its latest reader")
                .isAfter(reader.expiresAt());
        Grant stranger = Grant.builder(name, owner(), LockMode.SHARED)
                .fencingToken(0)
                .expiresAt(reader.expiresAt())
                .build();
        assertThat(backend.renew(stranger, LONG)).isEmpty();
        assertThat(backend.inspect(name).orElseThrow().owners()).containsExactly(reader.ownerId());
    }

    @Test
    void inspectIsEmptyForFreeAndExpiredLocks() {
        JdbcLockBackend backend = backend(freshTable());
        assertThat(backend.inspect(lockName())).isEmpty();
        Grant expiring =
                backend.tryAcquire(exclusive(lockName(), owner(), SHORT)).orElseThrow();
        assertThat(backend.inspect(expiring.name())).isPresent();
        await("expiry", () -> backend.inspect(expiring.name()).isEmpty());
    }

    // ---------------------------------------------------------------------------------------------
    // Concurrency

    @Test
    void concurrentWritersAndReadersNeverOverlapAndTokensGrowInGrantOrder() throws Exception {
        JdbcLockBackend backend = backend(freshTable());
        String name = lockName();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        List<Long> writerTokens = Collections.synchronizedList(new ArrayList<>());
        int threads = 6;
        int grantsPerThread = 15;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean writer = t % 2 == 0;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < grantsPerThread; i++) {
                        LockRequest request = writer ? exclusive(name, owner(), LONG) : shared(name, owner(), LONG);
                        Grant grant = awaitGrant(
                                () -> backend.tryAcquire(request), KitTime.bulkWork(threads * grantsPerThread));
                        if (writer) {
                            if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                violations.incrementAndGet();
                            }
                            writerTokens.add(grant.fencingToken());
                            writers.decrementAndGet();
                        } else {
                            readers.incrementAndGet();
                            if (writers.get() != 0) {
                                violations.incrementAndGet();
                            }
                            readers.decrementAndGet();
                        }
                        assertThat(backend.release(grant)).isTrue();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                Await.result(future, KitTime.bulkWork(threads * grantsPerThread));
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations).hasValue(0);
        assertThat(writerTokens).hasSize(threads / 2 * grantsPerThread);
        for (int i = 1; i < writerTokens.size(); i++) {
            assertThat(writerTokens.get(i)).isGreaterThan(writerTokens.get(i - 1));
        }
        assertThat(backend.inspect(name)).isEmpty();
    }

    // ---------------------------------------------------------------------------------------------
    // Schema

    @Test
    void schemaIsCreatedOnFirstUse() throws SQLException {
        String table = freshTable();
        JdbcLockBackend backend = backend(table);
        assertThat(tableExists(table)).isFalse();

        Grant grant = backend.tryAcquire(exclusive(lockName(), owner(), LONG)).orElseThrow();

        assertThat(tableExists(table)).isTrue();
        assertThat(tableExists(table + "_readers")).isTrue();
        assertThat(count(table)).isEqualTo(1);
        assertThat(grant.fencingToken()).isPositive();
    }

    @Test
    void schemaCreationIsSafeWhenManyClientsStartAtOnce() throws Exception {
        String table = freshTable();
        int clients = 4;
        List<JdbcLockBackend> backends = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            backends.add(backend(table));
        }
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<Grant>>> grants = new ArrayList<>();
            for (JdbcLockBackend backend : backends) {
                grants.add(pool.submit(() -> {
                    start.await();
                    return backend.tryAcquire(exclusive(lockName(), owner(), LONG));
                }));
            }
            start.countDown();
            for (Future<Optional<Grant>> grant : grants) {
                assertThat(Await.result(grant, KitTime.grant(OPTIONS.operationTimeout())))
                        .isPresent();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(count(table)).isEqualTo(clients);
    }

    @Test
    void withoutCreateSchemaMissingTablesFailWithTheDdlToRun() throws SQLException {
        String table = freshTable();
        JdbcLockBackend backend = backend(table, false);

        assertThatThrownBy(() -> backend.tryAcquire(exclusive("x", owner(), LONG)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("createSchema is false")
                .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + " (")
                .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + "_readers (")
                .hasMessageContaining("CREATE SEQUENCE IF NOT EXISTS " + table + "_fencing_seq");
        assertThat(tableExists(table)).isFalse();

        backend(table).tryAcquire(exclusive("creates", owner(), LONG)).orElseThrow();
        assertThat(backend.tryAcquire(exclusive("x", owner(), LONG)))
                .as("works once the tables exist")
                .isPresent();
    }

    @Test
    void schemaQualifiedTablesWork() throws SQLException {
        String schema = "s_" + freshTable();
        try (Connection connection = dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        String table = schema + ".MixedCase_Locks";
        JdbcLockBackend backend = backend(table);

        Grant writer = backend.tryAcquire(exclusive("q", owner(), LONG)).orElseThrow();
        assertThat(backend.release(writer)).isTrue();
        Grant reader = backend.tryAcquire(shared("q", owner(), LONG)).orElseThrow();

        assertThat(reader.fencingToken()).isGreaterThan(writer.fencingToken());
        assertThat(count(table)).isEqualTo(1);
        assertThat(count(table + "_readers")).isEqualTo(1);
    }

    @Test
    void ddlResourceSplitsIntoTheFourStatements() {
        List<String> statements =
                JdbcSchema.statementsOf(JdbcSchema.ddl("table", dialect(), TableNames.of("app.locks")));

        assertThat(statements).hasSize(4);
        assertThat(statements.get(0)).startsWith("CREATE TABLE IF NOT EXISTS app.locks (");
        assertThat(statements.get(1)).startsWith("CREATE TABLE IF NOT EXISTS app.locks_readers (");
        assertThat(statements.get(2)).isEqualTo("CREATE SEQUENCE IF NOT EXISTS app.locks_fencing_seq");
        assertThat(statements.get(3)).startsWith("CREATE TABLE IF NOT EXISTS app.locks_waiters (");
        assertThat(String.join("\n", statements)).doesNotContain("--").doesNotContain("${");
    }

    // ---------------------------------------------------------------------------------------------
    // Entry points and failures

    @Test
    void batonConnectFindsTheProviderAndStripsBatonParameters() throws SQLException {
        String table = freshTable();
        try (LockClient client = Baton.connect(url(table, true), OPTIONS)) {
            assertThat(client.backendName())
                    .isEqualTo("jdbc-table (" + dialect().displayName() + ")");
            try (Lease lease = client.lock("connect").acquire(KitTime.grant())) {
                assertThat(lease.fencingToken()).isPositive();
                assertThat(held(table)).isEqualTo(1);
            }
            assertThat(held(table)).isZero();
        }
    }

    @Test
    void clientBuiltFromAUriClosesItsPool() {
        LockBackend created = new JdbcLockBackendProvider().create(url(freshTable(), true), OPTIONS);
        JdbcLockBackend backend = (JdbcLockBackend) created;
        LockClient client = Baton.open(backend, OPTIONS);
        client.lock("pooled").acquire(KitTime.grant()).close();
        ReconnectingPool pool = backend.ownedPool();
        assertThat(pool.isClosed()).isFalse();

        client.close();

        assertThat(pool.isClosed()).isTrue();
        assertThatThrownBy(() -> backend.tryAcquire(exclusive("pooled", owner(), LONG)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void jdbcLocksUsesTheApplicationsPoolAndLeavesItOpen() throws SQLException {
        String table = freshTable();
        // An application pool that hands out connections with auto-commit off: the backend must still
        // commit its own work and give the connections back as it found them.
        HikariDataSource application = track(new HikariDataSource());
        application.setDataSource(dataSource());
        application.setAutoCommit(false);
        application.setMaximumPoolSize(2);
        LockClient client = JdbcLocks.builder(application)
                .table(table)
                .createSchema(true)
                .options(OPTIONS)
                .build();

        try (Lease lease = client.lock("app").acquire(KitTime.grant())) {
            assertThat(client.backendName())
                    .as("detected on first use")
                    .isEqualTo("jdbc-table (" + dialect().displayName() + ")");
            assertThat(lease.fencingToken()).isPositive();
            assertThat(held(table)).as("committed").isEqualTo(1);
        }
        assertThat(held(table)).isZero();
        client.close();

        assertThat(application.isClosed()).isFalse();
        try (Connection connection = application.getConnection()) {
            assertThat(connection.getAutoCommit()).isFalse();
            assertThat(connection.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    @Test
    void jdbcLocksBuilderValidatesAtOnce() {
        assertThatThrownBy(() -> JdbcLocks.builder(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("DataSource must not be null");
        JdbcLocks.Builder builder = JdbcLocks.builder(dataSource());
        assertThatThrownBy(() -> builder.table("drop table x"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'drop table x'")
                .hasMessageContaining("letters, digits or underscores");
        assertThatThrownBy(() -> builder.table(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("table name null");
        assertThatThrownBy(() -> builder.options(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("options must not be null");
    }

    @Test
    void wrongPasswordSaysAuthenticationFailed() {
        LockOptions quick =
                OPTIONS.toBuilder().operationTimeout(Duration.ofSeconds(1)).build();
        LockBackend backend = track(new JdbcLockBackendProvider().create(urlWithWrongPassword(), quick));
        String name = lockName();

        assertThatThrownBy(() -> backend.tryAcquire(exclusive(name, owner(), LONG)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(name)
                .hasMessageContaining(dialect().displayName())
                .hasMessageContaining("authentication failed")
                .hasMessageContaining("check the credentials")
                .hasMessageNotContaining("wrong-password")
                .cause()
                .isInstanceOf(SQLException.class);
    }

    // ---------------------------------------------------------------------------------------------

    boolean tableExists(String table) throws SQLException {
        try (Connection connection = dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            if (JdbcFailures.isMissingObject(e)) {
                return false;
            }
            throw e;
        }
    }

    /** The rows of names that are held (a released name keeps its row, free). */
    long held(String table) throws SQLException {
        return count(table + " WHERE lock_mode <> '-'");
    }

    @Test
    void aNameIdleForAnHourIsDeletedAndLockedAgainWithALargerToken() throws SQLException {
        String table = freshTable();
        String name = lockName();
        JdbcLockBackend first = backend(table);
        Grant before = first.tryAcquire(exclusive(name, owner(), LONG)).orElseThrow();
        assertThat(first.release(before)).isTrue();
        try (Connection connection = dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE " + table + " SET expires_at = expires_at - INTERVAL '2' HOUR");
        }

        RowProtocol rows = first.rows(exclusive(name, owner(), LONG));
        assertThat(rows.purgeIdle()).isEqualTo(1);

        assertThat(count(table + " WHERE lock_name = '" + name + "'")).isZero();
        Grant after = first.tryAcquire(exclusive(name, owner(), LONG)).orElseThrow();
        assertThat(after.fencingToken()).isGreaterThan(before.fencingToken());
    }

    long count(String table) throws SQLException {
        try (Connection connection = dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
