package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Leadership;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The snippets of docs/ that need no server but H2, run as the pages show them. */
@Timeout(60)
class SnippetsOnH2Test {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private String uri;
    private LockClient client;

    @BeforeEach
    void connect() {
        uri = "jdbc:h2:mem:snippets-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
        client = Baton.connect(uri);
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aFencedWriteIsRefusedOnceANewerHolderWrote() throws SQLException {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(uri);
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY, status VARCHAR(10), paid_at TIMESTAMP WITH TIME"
                    + " ZONE, fencing_token BIGINT)");
            s.execute("INSERT INTO invoices (id, status) VALUES (42, 'open')");
        }
        assertThat(ConceptsSnippets.payInvoice(client, dataSource, 42, Instant.now()))
                .isTrue();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("UPDATE invoices SET fencing_token = fencing_token + 1000 WHERE id = 42"); // a newer holder
        }
        assertThat(ConceptsSnippets.payInvoice(client, dataSource, 42, Instant.now()))
                .isFalse();
        try (Connection c = DriverManager.getConnection(uri);
                ResultSet r = c.createStatement().executeQuery("SELECT status FROM invoices WHERE id = 42")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getString(1)).isEqualTo("paid");
        }
    }

    @Test
    void reentrancyTryAcquireOptionsAndExtendRunAsShown() {
        assertThat(ConceptsSnippets.reentrancy(client)).isZero();
        AtomicInteger runs = new AtomicInteger();
        assertThat(ConceptsSnippets.tryOnce(client, runs::incrementAndGet)).isTrue();
        AtomicBoolean ranWhileHeld = new AtomicBoolean(true);
        try (Lease held = client.lock("nightly-report").acquire(Duration.ofSeconds(5))) {
            Thread other = new Thread(() -> ranWhileHeld.set(ConceptsSnippets.tryOnce(client, runs::incrementAndGet)));
            other.start();
            join(other);
        }
        assertThat(ranWhileHeld)
                .as("tryAcquire on another thread while the lock is held")
                .isFalse();
        assertThat(runs).hasValue(1);
        assertThat(ConceptsSnippets.options(client).name()).isEqualTo("nightly-report");
        ConceptsSnippets.extend(client, runs::incrementAndGet, runs::incrementAndGet);
        List<Runnable> steps = List.of(runs::incrementAndGet, runs::incrementAndGet);
        ConceptsSnippets.longJob(client, steps);
        ConceptsSnippets.lockView(client, runs::incrementAndGet);
        assertThat(runs).hasValue(6);
    }

    @Test
    void semaphoresMultiLocksAndReadWriteLocksRunAsShown() {
        AtomicLong token = new AtomicLong();
        PrimitivesSnippets.semaphore(client, token::set);
        assertThat(token.get()).isPositive();
        assertThat(PrimitivesSnippets.multiLock(client, new PrimitivesSnippets.Transfers()))
                .hasSize(2)
                .allSatisfy(t -> assertThat(t).isPositive());
        List<String> order = new ArrayList<>();
        PrimitivesSnippets.readWrite(client, () -> order.add("read"), () -> order.add("write"));
        assertThat(order).containsExactly("read", "write");
    }

    @Test
    void aCandidateIsElectedAndItsEpochGuardsItsWrites() throws InterruptedException {
        AtomicLong electedEpoch = new AtomicLong();
        CountDownLatch elected = new CountDownLatch(1);
        LeaderElectionSnippets.Scheduler scheduler = new LeaderElectionSnippets.Scheduler() {
            @Override
            public void resume(long epoch) {
                electedEpoch.set(epoch);
                elected.countDown();
            }

            @Override
            public void pause() {}
        };
        List<Long> written = new ArrayList<>();
        try (Leadership leadership = LeaderElectionSnippets.stand(client, scheduler)) {
            assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).isTrue();
            assertThat(LeaderElectionSnippets.leaderOnlyWork(leadership, (batch, epoch) -> written.add(epoch), "b"))
                    .isTrue();
        }
        elected.await();
        assertThat(written).as("the epoch the leader wrote with").containsExactly(electedEpoch.get());
    }

    @Test
    void theAdminListsAHeldLockAndBreaksIt() {
        Lease held = client.lock("billing/nightly-report").acquire(Duration.ofSeconds(5));
        assertThat(OperationsSnippets.listAndBreak(uri))
                .singleElement()
                .asString()
                .startsWith("billing/nightly-report");
        try (LockClient other = Baton.connect(uri)) {
            assertThat(other.lock("billing/nightly-report").tryAcquire())
                    .as("the broken lock, from another client")
                    .isPresent()
                    .get()
                    .satisfies(Lease::close);
        }
        held.close(); // the broken holder's release leaves the others alone
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
