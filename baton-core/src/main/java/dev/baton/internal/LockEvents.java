package dev.baton.internal;

import dev.baton.LockListener;
import dev.baton.LockListener.AcquireOutcome;
import dev.baton.LockLostException;
import java.time.Duration;
import java.util.List;
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

    /** One acquire call that is not reentrant: its wait and its single outcome. */
    final class Attempt {
        private final String lock;
        private final long startNanos;
        private final Ticker ticker;
        private boolean waiting;
        private boolean ended;

        private Attempt(String lock, Ticker ticker) {
            this.lock = lock;
            this.ticker = ticker;
            this.startNanos = ticker.nanoTime();
        }

        /** The call has to wait; reported once. */
        void waiting() {
            if (!waiting && !ended) {
                waiting = true;
                each("waitStarted", listener -> listener.waitStarted(lock, backend));
            }
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
                each("waitEnded", listener -> listener.waitEnded(lock, backend));
            }
            Duration waited = Duration.ofNanos(ticker.nanoTime() - startNanos);
            each("acquireEnded", listener -> listener.acquireEnded(lock, backend, outcome, waited));
        }
    }

    Attempt attempt(String lock, Ticker ticker) {
        return new Attempt(lock, ticker);
    }

    void leaseReleased(String lock, long heldNanos) {
        if (!none()) {
            Duration held = Duration.ofNanos(heldNanos);
            each("leaseReleased", listener -> listener.leaseReleased(lock, backend, held));
        }
    }

    void renewed(String lock) {
        if (!none()) {
            each("renewed", listener -> listener.renewed(lock, backend));
        }
    }

    void renewalFailed(String lock, Throwable cause) {
        each("renewalFailed", listener -> listener.renewalFailed(lock, backend, cause));
    }

    void leaseLost(String lock, LockLostException cause) {
        each("leaseLost", listener -> listener.leaseLost(lock, backend, cause));
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
