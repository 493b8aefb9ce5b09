package dev.baton.internal;

import dev.baton.LockKind;
import dev.baton.LockListener;
import dev.baton.LockListener.AcquireOutcome;
import dev.baton.LockLostException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls a client's {@link LockListener}s. Callers never hold a lock of the core while they call
 * here. A listener that throws is logged (a warning once per listener and kind of event, debug
 * after that) and never reaches the caller. Without listeners every method returns at once.
 */
final class LockEvents {
    private static final Logger log = LoggerFactory.getLogger(LockEvents.class);

    private final String backend;
    private final List<LockListener> listeners;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    LockEvents(String backend, List<LockListener> listeners) {
        this.backend = backend;
        this.listeners = List.copyOf(listeners);
    }

    boolean none() {
        return listeners.isEmpty();
    }

    /**
     * One acquire call that is not reentrant: its wait and its single outcome, and the {@link
     * LockListener.Acquisition} every event of the call and of its grant carries.
     */
    final class Attempt implements LockListener.Acquisition {
        private final String lock;
        private final LockKind kind;
        private final long startNanos;
        private final Ticker ticker;
        private volatile long fencingToken;
        private volatile boolean granted;
        private boolean waiting;
        private boolean ended;

        private Attempt(String lock, LockKind kind, Ticker ticker) {
            this.lock = lock;
            this.kind = kind;
            this.ticker = ticker;
            this.startNanos = ticker.nanoTime();
        }

        @Override
        public String lock() {
            return lock;
        }

        @Override
        public String backend() {
            return backend;
        }

        @Override
        public LockKind kind() {
            return kind;
        }

        @Override
        public OptionalLong fencingToken() {
            return granted ? OptionalLong.of(fencingToken) : OptionalLong.empty();
        }

        /** The call has to wait; reported once. */
        void waiting() {
            if (!waiting && !ended) {
                waiting = true;
                each("waitStarted", listener -> listener.waitStarted(this));
            }
        }

        /** The call was granted the grant of {@code token}; {@link #end} with ACQUIRED follows. */
        void granted(long token) {
            fencingToken = token;
            granted = true;
        }

        /** The call ended with {@code outcome}; only the first call counts. */
        void end(AcquireOutcome outcome) {
            if (ended) {
                return;
            }
            ended = true;
            if (none()) {
                return;
            }
            if (waiting) {
                each("waitEnded", listener -> listener.waitEnded(this));
            }
            Duration waited = Duration.ofNanos(ticker.nanoTime() - startNanos);
            each("acquireEnded", listener -> listener.acquireEnded(this, outcome, waited));
        }

        @Override
        public String toString() {
            return "Acquisition[" + lock + ", " + kind + ", " + backend + "]";
        }
    }

    /** Starts an acquire call's events, on the calling thread: {@code acquireStarted} is heard here. */
    Attempt attempt(String lock, LockKind kind, Ticker ticker) {
        Attempt attempt = new Attempt(lock, kind, ticker);
        if (!none()) {
            each("acquireStarted", listener -> listener.acquireStarted(attempt));
        }
        return attempt;
    }

    void leaseReleased(Attempt acquisition, long heldNanos) {
        if (!none()) {
            Duration held = Duration.ofNanos(heldNanos);
            each("leaseReleased", listener -> listener.leaseReleased(acquisition, held));
        }
    }

    void renewed(Attempt acquisition) {
        if (!none()) {
            each("renewed", listener -> listener.renewed(acquisition));
        }
    }

    void renewalFailed(Attempt acquisition, Throwable cause) {
        each("renewalFailed", listener -> listener.renewalFailed(acquisition, cause));
    }

    void leaseLost(Attempt acquisition, LockLostException cause) {
        each("leaseLost", listener -> listener.leaseLost(acquisition, cause));
    }

    private void each(String kind, Consumer<LockListener> call) {
        for (LockListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                String key = kind + "@" + System.identityHashCode(listener);
                if (warned.add(key)) {
                    log.warn(
                            "Baton client for {}: the lock listener {} failed in {} (logged once per listener"
                                    + " and event, then at debug level); locking goes on, fix the listener",
                            backend,
                            listener,
                            kind,
                            e);
                } else {
                    log.debug("Baton client for {}: the lock listener {} failed in {}", backend, listener, kind, e);
                }
            }
        }
    }
}
