package dev.baton.reactor;

import dev.baton.Lease;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * A lease from an asynchronous acquisition, started at subscription, that is either handed to the
 * subscriber or released: never dropped. Why not {@code Mono.fromFuture}: it asks the future for its
 * value only once the subscriber requests, so a lease that arrives before a request and is followed by
 * a cancel is never seen, and would stay held (and renewed) until the client closes; and values it
 * drops in a race with a cancel reach only the subscriber's discard hooks.
 *
 * <p>A cancel cancels the acquisition's future: the core then stops the wait, leaves the backend's line
 * and releases a grant that arrives after all. A lease the future already holds when the cancel comes,
 * and that the subscriber has not been given, is released here.
 */
final class LeaseMono extends Mono<Lease> {
    private final Supplier<CompletableFuture<Lease>> acquisition;

    LeaseMono(Supplier<CompletableFuture<Lease>> acquisition) {
        this.acquisition = acquisition;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Lease> actual) {
        CompletableFuture<Lease> future;
        try {
            future = Objects.requireNonNull(acquisition.get(), "the acquisition's future");
        } catch (RuntimeException e) {
            Operators.error(actual, Operators.onOperatorError(e, actual.currentContext()));
            return;
        }
        Handover handover = new Handover(actual, future);
        actual.onSubscribe(handover);
        future.whenComplete(handover::arrived);
    }

    /**
     * The state of one subscription, as bits: requested, arrived (the outcome is in the fields),
     * cancelled, and done (the outcome was passed on or the lease released; whoever sets it first
     * does that, once).
     */
    private static final class Handover extends AtomicInteger implements Subscription {
        private static final int REQUESTED = 1;
        private static final int ARRIVED = 2;
        private static final int CANCELLED = 4;
        private static final int DONE = 8;

        private final CoreSubscriber<? super Lease> actual;
        private final CompletableFuture<Lease> future;
        // Written before ARRIVED is set, read only after it was seen.
        private Lease lease;
        private Throwable failure;

        Handover(CoreSubscriber<? super Lease> actual, CompletableFuture<Lease> future) {
            this.actual = actual;
            this.future = future;
        }

        @Override
        public void request(long n) {
            if (!Operators.validate(n)) {
                return;
            }
            int before = getAndUpdate(s -> s | REQUESTED);
            if ((before & ARRIVED) != 0) {
                passOn();
            }
        }

        @Override
        public void cancel() {
            int before = getAndUpdate(s -> s | CANCELLED);
            if ((before & CANCELLED) != 0) {
                return;
            }
            future.cancel(false);
            if ((before & ARRIVED) != 0) {
                release();
            }
        }

        void arrived(Lease lease, Throwable failure) {
            this.lease = lease;
            this.failure =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            int before = getAndUpdate(s -> s | ARRIVED);
            if ((before & CANCELLED) != 0) {
                release(); // a failure after the cancel (its own CancellationException among them) is nobody's
            } else if (failure != null || (before & REQUESTED) != 0) {
                passOn(); // a failure needs no request
            }
        }

        private boolean claim() {
            return (getAndUpdate(s -> s | DONE) & DONE) == 0;
        }

        private void passOn() {
            if (!claim()) {
                return;
            }
            if (failure == null) {
                actual.onNext(lease);
                actual.onComplete();
            } else {
                actual.onError(failure);
            }
        }

        private void release() {
            if (claim() && lease != null) {
                lease.releaseAsync();
            }
        }
    }
}
