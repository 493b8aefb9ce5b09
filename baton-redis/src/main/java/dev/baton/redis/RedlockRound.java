package dev.baton.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The outcome of one Redlock round: the same call sent to every master at once, each bounded by the
 * per-node timeout, and per master its reply or the reason it has none. The caller counts answers
 * against the quorum; a master that failed or did not answer in time counts as not granting.
 *
 * @param replies per master, in the order of the masters, its reply or null when it failed
 * @param failures per master, why it has no reply, or null when it answered
 */
record RedlockRound(List<List<Object>> replies, List<Throwable> failures) {

    /** How many masters answered. */
    int answered() {
        return (int) replies.stream().filter(r -> r != null).count();
    }

    /** The first master's failure, for the message when too few answered; null if none failed. */
    Throwable firstFailure() {
        return failures.stream().filter(f -> f != null).findFirst().orElse(null);
    }

    /**
     * Sends {@code call} to every node and waits for all of them, together no longer than {@code
     * timeoutMillis} (plus 50 ms for the futures' own timers). An interrupt does not cut the wait
     * short (the round must know what each master did); it is restored afterwards.
     */
    static RedlockRound run(
            List<RedisNode> nodes, long timeoutMillis, Function<RedisNode, CompletableFuture<List<Object>>> call) {
        List<CompletableFuture<List<Object>>> futures = new ArrayList<>();
        for (RedisNode node : nodes) {
            CompletableFuture<List<Object>> future;
            try {
                future = call.apply(node).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            futures.add(future);
        }
        List<List<Object>> replies = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        boolean interrupted = false;
        long deadline =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) + TimeUnit.MILLISECONDS.toNanos(50);
        for (CompletableFuture<List<Object>> future : futures) {
            List<Object> reply = null;
            Throwable failure = null;
            while (true) {
                try {
                    reply = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    failure = RedisNode.unwrap(e);
                    break;
                } catch (TimeoutException e) {
                    failure = new TimeoutException("no reply within " + timeoutMillis + " ms");
                    break;
                }
            }
            replies.add(reply);
            failures.add(failure);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return new RedlockRound(replies, failures);
    }
}
