package dev.baton.redis;

import dev.baton.LockUnavailableException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.net.ConnectException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/** Turns Lettuce failures into {@link LockUnavailableException}s that name the lock, the backend and the fix. */
final class RedisFailures {
    /** A cluster redirect as a plain client sees it: {@code MOVED 3999 10.0.0.5:6381} or {@code ASK ...}. */
    private static final Pattern REDIRECT = Pattern.compile("\\b(moved|ask) \\d+ ");
    /** Netty's native transport's prefix: {@code finishConnect(..) failed with error(-111): }. */
    private static final Pattern NATIVE_CALL =
            Pattern.compile("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ");

    private RedisFailures() {}

    /**
     * Waits for {@code future} at most {@code timeoutNanos}, uninterruptibly (the wait is bounded;
     * an interrupt is kept for the caller to see), and translates failures.
     */
    static <T> T await(CompletableFuture<T> future, long timeoutNanos, String lock, String backend, String action) {
        return awaitAs(future, timeoutNanos, "Baton lock '" + lock + "'", backend, action);
    }

    /** {@link #await} for a failure message about {@code subject}, such as {@code Baton semaphore 'x'}. */
    static <T> T awaitAs(
            CompletableFuture<T> future, long timeoutNanos, String subject, String backend, String action) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw unavailableAs(subject, backend, action, RedisNode.unwrap(e));
                } catch (TimeoutException e) {
                    future.cancel(false);
                    throw unavailableAs(subject, backend, action, new RedisCommandTimeoutException("no reply"));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static LockUnavailableException unavailable(String lock, String backend, String action, Throwable failure) {
        return unavailableAs("Baton lock '" + lock + "'", backend, action, failure);
    }

    private static LockUnavailableException unavailableAs(
            String subject, String backend, String action, Throwable failure) {
        return new LockUnavailableException(
                subject + " on " + backend + ": " + action + " failed: " + explain(failure), failure);
    }

    /** Whether {@code failure} is a MOVED or ASK reply: the slot is not (or no longer) served there. */
    static boolean redirected(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            if (message.startsWith("MOVED ") || message.startsWith("ASK ")) {
                return true;
            }
        }
        return false;
    }

    /** What went wrong and what to do about it. */
    static String explain(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof LinkageError linkage) {
                return NettyLine.explain(linkage);
            }
        }
        String all = chain(failure);
        String lower = all.toLowerCase(Locale.ROOT);
        if (lower.contains("wrongpass")
                || lower.contains("noauth")
                || lower.contains("invalid password")
                || lower.contains("invalid username-password")) {
            return "authentication failed (" + firstLine(all)
                    + "); check the password and the ACL user in the URI (redis://user:password@host:port)";
        }
        if (lower.contains("noperm")) {
            return "the ACL user may not run what Baton needs (" + firstLine(all)
                    + "); allow EVAL, EVALSHA, PUBLISH, SUBSCRIBE and the lock keys (~baton:*) for that user";
        }
        if (lower.contains("unknown command") && (lower.contains("eval") || lower.contains("script"))) {
            return "the server does not run Lua scripts (" + firstLine(all)
                    + "); Baton needs EVAL/EVALSHA (Redis 2.6 or newer, scripting not renamed or disabled)";
        }
        if (lower.contains("readonly")) {
            return "the server is a read-only replica (" + firstLine(all)
                    + "); point the URI at the master, or use redis-sentinel:// to find it";
        }
        if (lower.contains("clusterdown")) {
            return "the Redis Cluster is down or no master serves this lock's hash slot (" + firstLine(all)
                    + "); check CLUSTER INFO on the nodes, let a failover finish (cluster-node-timeout) or"
                    + " assign the missing slots";
        }
        if (lower.contains("cluster support disabled")) {
            return "the server is not part of a Redis Cluster (" + firstLine(all)
                    + "); use redis://host:port for a single server or redis-sentinel:// for Sentinel";
        }
        if (lower.contains("crossslot") || REDIRECT.matcher(lower).find()) {
            return "the server is part of a Redis Cluster (" + firstLine(all)
                    + "); use redis-cluster://host1:port,host2:port so that the client follows the cluster's"
                    + " redirects";
        }
        if (lower.contains("cluster partitions") || lower.contains("connection to redis cluster")) {
            return "cannot read the cluster topology from any seed node (" + firstLine(all)
                    + "); check that the seeds in the URI are nodes of a running Redis Cluster and reachable";
        }
        if (failure instanceof RedisCommandTimeoutException) {
            return "Redis did not answer within the operation timeout; check that the server is reachable and"
                    + " not overloaded, or raise LockOptions.operationTimeout";
        }
        if (failure instanceof RedisConnectionException || hasCause(failure, ConnectException.class)) {
            return "cannot connect (" + connectReason(failure, all)
                    + "); check that Redis runs at that address and is reachable";
        }
        if (lower.contains("closed") || lower.contains("connection")) {
            return "the connection is down (" + firstLine(all)
                    + "); check that Redis is reachable, the client reconnects by itself";
        }
        return firstLine(all);
    }

    /**
     * The socket's own reason ({@code Connection refused: /127.0.0.1:6390}) without the client
     * libraries' exception class names (Netty's AnnotatedConnectException, Lettuce's wrapper), which
     * a user cannot act on; the whole chain when no socket error is in it.
     */
    private static String connectReason(Throwable failure, String chain) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConnectException && t.getMessage() != null) {
                return NATIVE_CALL.matcher(firstLine(t.getMessage())).replaceFirst("");
            }
        }
        return firstLine(chain);
    }

    private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String chain(Throwable failure) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = failure; t != null && out.length() < 2000; t = t.getCause()) {
            if (out.length() > 0) {
                out.append(" <- ");
            }
            out.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            // Lettuce's cluster client reports each seed's failure as a suppressed exception.
            for (Throwable suppressed : t.getSuppressed()) {
                out.append(" [").append(suppressed.getClass().getSimpleName()).append(": ");
                out.append(suppressed.getMessage());
                for (Throwable c = suppressed.getCause(); c != null; c = c.getCause()) {
                    out.append(" <- ").append(c.getMessage());
                }
                out.append("]");
            }
        }
        return out.toString();
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        String line = newline < 0 ? text : text.substring(0, newline);
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }
}
