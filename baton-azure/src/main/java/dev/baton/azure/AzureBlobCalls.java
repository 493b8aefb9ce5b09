package dev.baton.azure;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.rest.Response;
import com.azure.core.util.DateTimeRfc1123;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * One Azure request as Baton makes it: bounded by the operation timeout as a whole, retried inside
 * it, and turned into an exception that names the lock, the backend and the fix.
 *
 * <p>Retried, with capped exponential backoff and jitter (20 ms doubling up to 500 ms), while the
 * operation timeout lasts: throttling and server trouble (408, 429, 500, 503: {@code ServerBusy},
 * {@code OperationTimedOut}) and transport failures (connection refused or reset, no answer). Every
 * other answer goes back to the caller as the {@link BlobStorageException}, which the wire protocol
 * reads (409 lease conflicts, 404, 412) or hands to {@link #failure}. The SDK's own retries are off,
 * so this loop is the only one and the whole operation stays within its bound.
 *
 * <p>The wait is not interruptible (it is bounded): an interrupt is kept for the caller to see once
 * the call returns, so the core reports it the way it reports every interrupted wait.
 */
final class AzureBlobCalls {
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final String backend;
    private final AzureBlobUri uri;
    private final String endpoint;
    private final Duration timeout;
    private final BooleanSupplier closed;

    /** @param closed whether the backend is closed: its transport is gone, so no attempt can succeed */
    AzureBlobCalls(String backend, AzureBlobUri uri, String endpoint, Duration timeout, BooleanSupplier closed) {
        this.backend = backend;
        this.uri = uri;
        this.endpoint = endpoint;
        this.timeout = timeout;
        this.closed = closed;
    }

    Duration timeout() {
        return timeout;
    }

    /**
     * Sends {@code request} (a fresh {@link Mono} per attempt) until it answers with anything but a
     * retryable failure, or the operation timeout runs out.
     *
     * @throws BlobStorageException for an answer that is not retried: the caller decides
     * @throws LockUnavailableException when the time ran out on retryable failures
     */
    <T> T call(String lock, String action, Supplier<Mono<T>> request) {
        return call(lock, action, request, new AtomicBoolean());
    }

    /**
     * As {@link #call(String, String, Supplier)}; {@code unanswered} is set when an attempt may have
     * reached Azure without its answer reaching us (a transport failure or no answer in time), so a
     * later "nothing to do" answer may be this very request's effect.
     */
    <T> T call(String lock, String action, Supplier<Mono<T>> request, AtomicBoolean unanswered) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long step = FIRST_PAUSE_NANOS;
        Throwable last = null;
        boolean interrupted = false;
        try {
            while (true) {
                if (closed.getAsBoolean()) {
                    // Retrying on a closed transport would only hold the caller until the deadline.
                    throw new LockUnavailableException(prefix(lock) + action + " failed: the client was closed", last);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw gaveUp(lock, action, last);
                }
                CompletableFuture<T> future = request.get().toFuture();
                try {
                    while (true) {
                        try {
                            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    if (cause instanceof BlobStorageException answer && !retryable(answer)) {
                        throw answer;
                    }
                    last = cause;
                    unanswered.compareAndSet(false, !(cause instanceof BlobStorageException));
                } catch (TimeoutException e) {
                    future.cancel(true);
                    unanswered.set(true);
                    // An attempt cut short by the deadline says less than an earlier answer or refusal.
                    if (last == null) {
                        last = new TimeoutException("no answer within the operation timeout (" + timeout + ")");
                    }
                    continue;
                }
                long pause = step / 2 + ThreadLocalRandom.current().nextLong(step / 2 + 1);
                interrupted |= pause(Math.min(pause, deadline - System.nanoTime()));
                step = Math.min(MAX_PAUSE_NANOS, step * 2);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Parks for {@code nanos}, whatever interrupts come; returns whether one came. */
    private static boolean pause(long nanos) {
        boolean interrupted = false;
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
            interrupted |= Thread.interrupted();
        }
        return interrupted;
    }

    /** The server's Date header (second precision), or this machine's clock if it is missing. */
    static Instant serverTime(Response<?> response) {
        String date = response.getHeaders().getValue(HttpHeaderName.DATE);
        if (date != null) {
            try {
                return new DateTimeRfc1123(date).getDateTime().toInstant();
            } catch (RuntimeException e) {
                // fall through: the expiry is informational only
            }
        }
        return Instant.now();
    }

    static boolean retryable(BlobStorageException answer) {
        int status = answer.getStatusCode();
        return status == 408 || status == 429 || status == 500 || status == 503;
    }

    static boolean is(BlobStorageException answer, BlobErrorCode code) {
        return code.equals(answer.getErrorCode());
    }

    private LockUnavailableException gaveUp(String lock, String action, Throwable last) {
        String why;
        if (last instanceof BlobStorageException answer) {
            why = "Azure kept answering " + answer.getStatusCode() + " " + answer.getErrorCode()
                    + " (throttled or busy) for the whole operation timeout (" + timeout + "), retried with backoff;"
                    + " lower the request rate on this storage account or raise LockOptions.operationTimeout";
        } else if (last == null || last instanceof TimeoutException) {
            why = "the blob service at " + endpoint + " did not answer within the operation timeout (" + timeout
                    + "); check that it is reachable and not overloaded, or raise LockOptions.operationTimeout";
        } else {
            why = "cannot reach the blob service at " + endpoint + " (" + firstLine(last)
                    + "), retried for the operation timeout (" + timeout + "); check the endpoint, the network and"
                    + " that the service runs";
        }
        return new LockUnavailableException(prefix(lock) + action + " failed: " + why, last);
    }

    /** An answer the wire protocol does not expect, explained. */
    LockUnavailableException failure(String lock, String action, BlobStorageException answer) {
        return new LockUnavailableException(prefix(lock) + action + " failed: " + explain(answer), answer);
    }

    private String explain(BlobStorageException answer) {
        int status = answer.getStatusCode();
        String code = String.valueOf(answer.getErrorCode());
        String seen = status + " " + code;
        if (status == 403) {
            return "Azure refused the credentials (" + seen + ") taken from "
                    + uri.credential().source()
                    + "; check the account key, the connection string, or the SAS token (it needs read, write and"
                    + " create permissions on the container, sp=rwc, and must not have expired)";
        }
        if (is(answer, BlobErrorCode.CONTAINER_NOT_FOUND)) {
            return "the container '" + uri.container() + "' does not exist in account '" + uri.account() + "' ("
                    + seen + "); create it (az storage container create --name " + uri.container()
                    + " --account-name " + uri.account() + ") or allow Baton to: createContainer=true in the URI";
        }
        if (status == 400
                && firstLine(answer).toLowerCase(java.util.Locale.ROOT).contains("version")) {
            return "the service refused the request's API version (" + seen + "); for Azurite, start it with"
                    + " --skipApiVersionCheck or use a newer azurite";
        }
        return "Azure answered " + seen + ": " + firstLine(answer);
    }

    String prefix(String lock) {
        return lock == null ? "Baton on " + backend + ": " : "Baton lock '" + lock + "' on " + backend + ": ";
    }

    private static String firstLine(Throwable failure) {
        String text = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        for (Throwable cause = failure.getCause(); cause != null && text.length() < 400; cause = cause.getCause()) {
            text += " <- " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
        }
        int newline = text.indexOf('\n');
        String line = newline < 0 ? text : text.substring(0, newline);
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }
}
