package dev.baton.etcd;

import dev.baton.LockKind;
import dev.baton.LockUnavailableException;
import dev.baton.spi.LockRequest;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The jetcd client as the backend uses it: every call bounded by a deadline (the operation timeout),
 * a call that failed because etcd could not be reached or had no leader retried until then, and
 * failures worded with the lock, the backend and what to do. Only idempotent calls go through
 * {@link #call}: every request of this backend is (a key is named by its attempt's owner id, and the
 * one that creates it only does so if it is absent).
 */
final class EtcdCalls {
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MIN_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    final Client client;
    private final EtcdReconnect reconnect;
    private final EtcdUri uri;
    private final String backendName;
    private final Duration operationTimeout;
    /** How long one attempt may take before it is sent again: a third of the operation timeout. */
    private final long attemptNanos;

    private volatile boolean closed;

    EtcdCalls(EtcdUri uri, Client client, Duration operationTimeout) {
        this.uri = uri;
        this.client = client;
        this.reconnect = new EtcdReconnect(client);
        this.backendName = uri.describe();
        this.operationTimeout = operationTimeout;
        this.attemptNanos = Math.max(MIN_ATTEMPT_NANOS, operationTimeout.toNanos() / 3);
    }

    /** Asks the channel to connect again now (see {@link EtcdReconnect}). */
    EtcdReconnect reconnect() {
        return reconnect;
    }

    String backendName() {
        return backendName;
    }

    /** {@code Baton lock 'name' on etcd (host:2379)}: how messages start. */
    String describe(String lockName) {
        return "Baton lock '" + lockName + "' on " + backendName;
    }

    /** {@code Baton semaphore 'name' (4 permits) on etcd (host:2379)}, as the core words it. */
    String describeSemaphore(String name, int permits) {
        return "Baton semaphore '" + name + "' (" + permits + (permits == 1 ? " permit" : " permits") + ") on "
                + backendName;
    }

    /** How messages about {@code request} start: a lock's or a semaphore's wording. */
    String describe(LockRequest request) {
        return request.kind() == LockKind.PERMIT
                ? describeSemaphore(request.name(), request.permits())
                : describe(request.name());
    }

    /** The deadline of a call that starts now. */
    long deadline() {
        return System.nanoTime() + operationTimeout.toNanos();
    }

    Duration operationTimeout() {
        return operationTimeout;
    }

    boolean isClosed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    void checkOpen(String lockName) {
        checkOpenAbout(describe(lockName));
    }

    /** {@link #checkOpen} with the message's subject given ({@link #describe}). */
    void checkOpenAbout(String subject) {
        if (closed) {
            throw new LockUnavailableException(
                    subject + ": the client was closed; create a new client with Baton.connect to take locks again");
        }
    }

    /**
     * Runs {@code call} until it succeeds, fails for good, or {@code deadline} passes.
     *
     * <p>An attempt that has no answer after a third of the operation timeout is sent again: a member
     * that took a write just as its leader died forwards it to the dead leader and never answers it,
     * while the same request sent again after the election succeeds.
     *
     * <p>Interrupts: a request in flight when the thread is interrupted is waited for (within the
     * deadline), so that the caller knows what it did: it returns normally with the thread's interrupt
     * flag set if the request succeeded, and throws {@link InterruptedException} if it failed.
     *
     * @param what what the call does, for messages ("taking the lock")
     * @throws LockUnavailableException when etcd could not be reached, had no quorum, refused the
     *     credentials or the permission, or did not answer in time
     * @throws InterruptedException if the thread was interrupted and the request did not succeed
     */
    <T> T call(String lockName, String what, long deadline, Supplier<CompletableFuture<T>> call)
            throws InterruptedException {
        return callAbout(describe(lockName), what, deadline, call);
    }

    /**
     * {@link #call} with the messages' subject given ({@link #describe}, {@link #describeSemaphore}).
     *
     * @param subject how failure messages start: {@code Baton semaphore 'a' (4 permits) on ...}
     */
    <T> T callAbout(String subject, String what, long deadline, Supplier<CompletableFuture<T>> call)
            throws InterruptedException {
        long pause = FIRST_PAUSE_NANOS;
        Throwable last = null;
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                checkOpenAbout(subject);
                if (deadline - System.nanoTime() <= 0) {
                    throw failureAbout(subject, what, last != null ? last : new TimeoutException());
                }
                CompletableFuture<T> future = call.get();
                long attemptEnd = Math.min(deadline, System.nanoTime() + attemptNanos);
                while (true) {
                    try {
                        return future.get(Math.max(0, attemptEnd - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        interrupted = true; // wait for the answer: the caller must know what happened
                    } catch (TimeoutException e) {
                        future.cancel(true);
                        if (deadline - System.nanoTime() > 0) {
                            // A write a member took while its leader died waits, dropped, until it
                            // times out: ask again (another member, or the new leader).
                            last = e;
                            break;
                        }
                        throw failureAbout(subject, what, last != null ? last : e);
                    } catch (ExecutionException | CancellationException e) {
                        Throwable cause = unwrap(e);
                        if (!retryable(cause)) {
                            throw failureAbout(subject, what, cause);
                        }
                        last = cause;
                        if (code(cause).equals("UNAVAILABLE")) {
                            // Unreachable now: the retry below should not wait for gRPC's back-off.
                            reconnect.now();
                        }
                        break;
                    }
                }
                if (interrupted) {
                    interrupted = false;
                    throw new InterruptedException();
                }
                checkOpenAbout(subject);
                long sleep = Math.min(pause, deadline - System.nanoTime());
                if (sleep > 0) {
                    LockSupport.parkNanos(sleep);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
                pause = Math.min(MAX_PAUSE_NANOS, pause * 2);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static Throwable unwrap(Throwable thrown) {
        Throwable cause = thrown;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The gRPC status code name of a failure ({@code UNAVAILABLE}, ...). */
    static String code(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof EtcdException etcd) {
            return etcd.getErrorCode().name();
        }
        return Status.fromThrowable(cause).getCode().name();
    }

    /** The server's or the transport's description of a failure. */
    static String description(Throwable failure) {
        Throwable cause = unwrap(failure);
        String text;
        if (cause instanceof EtcdException etcd) {
            text = etcd.getMessage();
        } else {
            Status status = Status.fromThrowable(cause);
            text = status.getDescription();
            if (text == null && status.getCause() != null) {
                text = status.getCause().toString();
            }
        }
        return text == null ? cause.toString() : text;
    }

    /** Whether etcd said the lease is gone (expired or revoked). */
    static boolean isLeaseNotFound(Throwable failure) {
        return description(failure).contains("requested lease not found");
    }

    /**
     * Failures worth another try within the deadline: etcd not reachable now, no leader (an election
     * is under way), a connection that dropped under the request, a request that timed out inside the
     * cluster, or an auth token that jetcd renews;
     * not a TLS handshake that failed over a certificate.
     */
    static boolean retryable(Throwable failure) {
        if (isCertificateRefusal(failure)) {
            return false;
        }
        String code = code(failure);
        String text = description(failure).toLowerCase(Locale.ROOT);
        return code.equals("UNAVAILABLE")
                || code.equals("DEADLINE_EXCEEDED")
                // The connection dropped under a request in flight (a member killed): jetcd's Vert.x
                // transport reports it as UNKNOWN, not UNAVAILABLE; the request may be sent again.
                || (code.equals("UNKNOWN") && (text.contains("channel closed") || text.contains("connection reset")))
                || text.contains("invalid auth token")
                || text.contains("revision of auth store is old")
                || text.contains("leader changed")
                || text.contains("no leader")
                || text.contains("request timed out");
    }

    /** Why a TLS handshake failed over a certificate. */
    private enum CertificateRefusal {
        UNTRUSTED_SERVER,
        WRONG_HOST,
        CLIENT_CERTIFICATE_REFUSED;

        /** The refusal a failure's causes describe; null if it was not one. */
        static CertificateRefusal of(Throwable failure) {
            String text = causes(failure);
            if (text.contains("unable to find valid certification path") || text.contains("pkix path")) {
                return UNTRUSTED_SERVER;
            }
            if (text.contains("no subject alternative") || text.contains("no name matching")) {
                return WRONG_HOST;
            }
            if (text.contains("bad_certificate") || text.contains("certificate_required")) {
                return CLIENT_CERTIFICATE_REFUSED;
            }
            return null;
        }
    }

    /** What a failed TLS handshake says, with the fix; null if the failure was not one. */
    private String tlsProblem(Throwable failure) {
        CertificateRefusal refusal = CertificateRefusal.of(failure);
        if (refusal == null) {
            return null;
        }
        return switch (refusal) {
            case UNTRUSTED_SERVER -> "etcd's TLS certificate is not trusted (no valid certification path): give the"
                    + " certificate of the authority that signed it in the URI, ca=/path/ca.pem";
            case WRONG_HOST -> "etcd's TLS certificate does not name the host in the URI: connect with a host name or"
                    + " address it names, or have it issued for this one";
            case CLIENT_CERTIFICATE_REFUSED -> "etcd refused the TLS handshake because it asks for a client certificate"
                    + " signed by an authority it trusts: give one in the URI,"
                    + " cert=/path/client.pem&key=/path/client-key.pem"
                    + (uri.cert() == null ? " (none was given)" : " (" + uri.cert() + " was not accepted)");
        };
    }

    /** Whether a TLS handshake failed over a certificate: asking again cannot help. */
    static boolean isCertificateRefusal(Throwable failure) {
        return CertificateRefusal.of(failure) != null;
    }

    /** The messages of a failure and its causes, lower case, one per line. */
    private static String causes(Throwable failure) {
        StringBuilder chain = new StringBuilder();
        for (Throwable cause = failure; cause != null && chain.length() < 10_000; cause = cause.getCause()) {
            chain.append(cause.getMessage()).append('\n');
            if (cause.getCause() == cause) {
                break;
            }
        }
        return chain.toString().toLowerCase(Locale.ROOT);
    }

    /** A failure as the caller sees it: the lock, the backend, what failed, why, and what to do. */
    LockUnavailableException failure(String lockName, String what, Throwable failure) {
        return failureAbout(describe(lockName), what, failure);
    }

    /** {@link #failure} with the message's subject given ({@link #describe}). */
    LockUnavailableException failureAbout(String subject, String what, Throwable failure) {
        return new LockUnavailableException(subject + ": " + what + " failed: " + reason(failure), failure);
    }

    /** Why a call failed, with the fix. */
    String reason(Throwable failure) {
        String code = code(failure);
        if (failure instanceof TimeoutException || code.equals("DEADLINE_EXCEEDED")) {
            // A plain client against a TLS port (or the reverse) often ends here too: gRPC retries the
            // failed handshakes until the deadline, so the hint about the scheme belongs in this message.
            return "etcd did not answer within the operation timeout (" + operationTimeout.toMillis() + " ms): check"
                    + " that its members run, that the URI's scheme matches them (etcds:// for TLS, etcd:// for"
                    + " plain), and that a majority of them reach each other (a cluster without quorum holds a"
                    + " write until it times out), or raise operationTimeout";
        }
        String text = description(failure);
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("no leader") || lower.contains("request timed out") || lower.contains("leader changed")) {
            return "the etcd cluster has no quorum (" + text + "): a majority of its members must be up and reach"
                    + " each other; check them with 'etcdctl endpoint status'";
        }
        if (lower.contains("authentication failed")) {
            return "etcd refused user '" + uri.user() + "' (" + text + "): check the user name and password in the"
                    + " URI";
        }
        if (lower.contains("authentication is not enabled")) {
            return "the URI gives credentials but authentication is disabled on etcd (" + text + "): remove"
                    + " user:password from the URI, or enable authentication on etcd";
        }
        if (lower.contains("user name is empty")
                || lower.contains("user name not found")
                || (code.equals("UNAUTHENTICATED") && uri.user() == null)) {
            return "etcd requires authentication (" + text + "): put user:password in the URI"
                    + " (etcd://user:password@host:2379)";
        }
        if (lower.contains("permission denied") || code.equals("PERMISSION_DENIED")) {
            return "etcd denied user '" + uri.user() + "' access to " + uri.namespace() + uri.root() + "/ (" + text
                    + "): grant it a role with readwrite permission on that prefix (etcdctl role grant-permission"
                    + " --prefix=true ROLE readwrite " + uri.namespace() + uri.root() + "/)";
        }
        String tls = tlsProblem(failure);
        if (tls != null) {
            return tls;
        }
        if (code.equals("UNAVAILABLE")) {
            return "cannot reach etcd at " + String.join(",", uri.endpoints()) + " (" + text + "): check that it"
                    + " runs and that the URI's hosts and ports (and etcds:// for TLS) are right";
        }
        return "etcd answered " + code + ": " + text;
    }
}
