package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockListener;
import dev.baton.LockListener.AcquireOutcome;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The snippets of docs/async.md, Java and Kotlin, run on H2 as the page shows them: the work runs
 * under the lock with its token, and the lock is free again afterwards (for another client, which
 * waits for it with a bounded blocking acquire, since a release started by {@code whenComplete} may
 * still be on its way); a cancelled wait leaves the lock to the next client once its holder releases.
 */
@Timeout(60)
class AsyncSnippetsOnH2Test {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final Duration FREE_WITHIN = Duration.ofSeconds(10);

    private final List<LockClient> clients = new ArrayList<>();
    private String uri;
    private LockClient client;

    @BeforeEach
    void connect() {
        uri = "jdbc:h2:mem:async-snippets-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
        client = other();
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    private LockClient other() {
        LockClient another = Baton.connect(uri);
        clients.add(another);
        return another;
    }

    /** Asserts that another client gets {@code name}, waiting for a release that may be on its way. */
    private void freeAgain(String name) {
        try (Lease next = other().lock(name).acquire(FREE_WITHIN)) {
            assertThat(next.isValid()).isTrue();
        }
    }

    private boolean heldElsewhere(String name) {
        Optional<Lease> taken = other().lock(name).tryAcquire();
        taken.ifPresent(Lease::close);
        return taken.isEmpty();
    }

    @Test
    void completableFutureSnippetsPayUnderTheLockAndCancelCleanly() {
        AsyncSnippets.Receipt receipt = AsyncSnippets.pay(
                        client,
                        (invoice, token) -> CompletableFuture.completedFuture(
                                heldElsewhere("invoice-" + invoice) ? new AsyncSnippets.Receipt(invoice, token) : null),
                        42)
                .join();
        assertThat(receipt).as("paid while the lock was held").isNotNull();
        assertThat(receipt.fencingToken()).isPositive();
        freeAgain("invoice-42");

        AsyncSnippets.withOverallDeadline(client).join().close();

        Lease held = other().lock("nightly-report").acquire(FREE_WITHIN);
        CompletableFuture<Lease> waiting = client.lock("nightly-report").acquireAsync();
        AsyncSnippets.onShutdown(waiting);
        assertThat(waiting).isCancelled();
        held.close();
        freeAgain("nightly-report");
    }

    @Test
    void reactorSnippetsRunTheWorkUnderTheLock() {
        AsyncSnippets.Receipt receipt = AsyncSnippets.payReactively(
                        client,
                        (invoice, token) -> Mono.fromCallable(() ->
                                heldElsewhere("invoice-" + invoice) ? new AsyncSnippets.Receipt(invoice, token) : null),
                        7)
                .block(FREE_WITHIN);
        assertThat(receipt).as("paid while the lock was held").isNotNull();
        freeAgain("invoice-7");

        List<String> rows = AsyncSnippets.export(client, token -> Flux.just("a" + token, "b" + token))
                .collectList()
                .block(FREE_WITHIN);
        assertThat(rows).hasSize(2);
        freeAgain("nightly-export");

        assertThat(AsyncSnippets.blockingWork(client, token -> heldElsewhere("nightly-report") ? 3 : -1)
                        .block(FREE_WITHIN))
                .isEqualTo(3);
        freeAgain("nightly-report");
    }

    @Test
    void coroutineSnippetsPayUnderTheLockAndACancelledCoroutineLeavesNothing() throws InterruptedException {
        CoroutineReceipt receipt = CoroutineSnippetsKt.payInvoiceBlocking(
                client,
                9,
                (invoice, token) -> heldElsewhere("invoice-" + invoice) ? new CoroutineReceipt(invoice, token) : null);
        assertThat(receipt).as("paid while the lock was held").isNotNull();
        freeAgain("invoice-9");

        BlockingQueue<AcquireOutcome> outcomes = new LinkedBlockingQueue<>();
        LockClient listened = Baton.connect(
                uri,
                LockOptions.builder()
                        .listener(new LockListener() {
                            @Override
                            public void acquireEnded(String lock, String backend, AcquireOutcome outcome, Duration d) {
                                outcomes.add(outcome);
                            }
                        })
                        .build());
        clients.add(listened);
        Lease held = other().lock("invoice-10").acquire(FREE_WITHIN);
        assertThat(CoroutineSnippetsKt.cancelledWhileWaiting(listened, "invoice-10", 300))
                .as("the coroutine was cancelled while it waited")
                .isTrue();
        assertThat(outcomes.poll(FREE_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
                .as("the acquisition ended with the coroutine")
                .isEqualTo(AcquireOutcome.CANCELLED);
        held.close();
        assertThat(other().lock("invoice-10").tryAcquire())
                .as("the lock at once after its holder released it: the cancelled coroutine left nothing")
                .isPresent()
                .get()
                .satisfies(Lease::close);
    }
}
