package dev.baton.docs;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.reactor.ReactiveLocks;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The Java snippets of docs/async.md (the Kotlin ones are in src/test/kotlin); AsyncSnippetsOnH2Test
 * runs them on H2.
 */
class AsyncSnippets {
    record Receipt(long invoiceId, long fencingToken) {}

    interface Payments {
        CompletableFuture<Receipt> charge(long invoiceId, long fencingToken);
    }

    interface ReactivePayments {
        Mono<Receipt> charge(long invoiceId, long fencingToken);
    }

    interface Exporter {
        Flux<String> rows(long fencingToken);
    }

    interface Report {
        int run(long fencingToken); // blocking
    }

    static CompletableFuture<Receipt> pay(LockClient client, Payments payments, long invoiceId) {
        // snippet:start acquire-async
        CompletableFuture<Receipt> paid = client.lock("invoice-" + invoiceId)
                .acquireAsync(Duration.ofSeconds(5)) // returns at once; no thread waits for the lock
                .thenCompose(lease -> payments.charge(invoiceId, lease.fencingToken()) // your asynchronous work
                        .whenComplete((receipt, failure) -> lease.releaseAsync())); // released however it ends
        // snippet:end acquire-async
        return paid;
    }

    static CompletableFuture<Lease> withOverallDeadline(LockClient client) {
        // snippet:start or-timeout
        CompletableFuture<Lease> acquisition = client.lock("nightly-report").acquireAsync(); // no limit of its own
        acquisition.orTimeout(30, TimeUnit.SECONDS); // completes it with TimeoutException, which stops the wait
        // snippet:end or-timeout
        return acquisition;
    }

    static void onShutdown(CompletableFuture<Lease> acquisition) {
        // snippet:start cancel
        if (!acquisition.cancel(false)) { // stops the wait: nothing stays on the backend, a late grant is released
            acquisition.thenAccept(Lease::releaseAsync); // it was granted before the cancel: give it back
        }
        // snippet:end cancel
    }

    static Mono<Receipt> payReactively(LockClient client, ReactivePayments payments, long invoiceId) {
        // snippet:start reactor-with-lock
        Mono<Receipt> paid = ReactiveLocks.withLock(
                client.lock("invoice-" + invoiceId),
                Duration.ofSeconds(5), // then LockTimeoutException, and the work is not run
                lease -> payments.charge(invoiceId, lease.fencingToken())); // subscribed once the lock is held
        // snippet:end reactor-with-lock
        return paid;
    }

    static Flux<String> export(LockClient client, Exporter exporter) {
        // snippet:start reactor-many
        Flux<String> rows = ReactiveLocks.withLockMany(
                        client.lock("nightly-export"),
                        Duration.ofSeconds(30),
                        lease -> exporter.rows(lease.fencingToken())) // held until the Flux ends, fails or is cancelled
                .timeout(Duration.ofMinutes(10)); // a cancel: it stops a wait, or releases the lock
        // snippet:end reactor-many
        return rows;
    }

    static Mono<Integer> blockingWork(LockClient client, Report report) {
        // snippet:start reactor-blocking
        Function<Lease, Mono<Integer>> work = lease -> Mono.fromCallable(() -> report.run(lease.fencingToken()))
                .subscribeOn(Schedulers.boundedElastic()); // blocking JDBC work, off Baton's threads
        Mono<Integer> rows = ReactiveLocks.withLock(client.lock("nightly-report"), Duration.ofSeconds(5), work);
        // snippet:end reactor-blocking
        return rows;
    }
}
