package dev.baton.internal;

import dev.baton.LockLostException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code onLost} listeners of one grant: each is called at most once, on the thread that tells
 * of the loss, or at once when added after the loss was told. Listeners run with no lock held; one
 * that throws is logged and the others are still called.
 *
 * <p>Also how a {@link HeldGrant}'s loss is told: once to these listeners and once to the client's
 * {@link LockEvents}. The static helpers keep that off the grant, which a client may hold tens of
 * thousands of: the listeners are made only when first needed ({@link #of}).
 */
final class LossListeners {
    private static final Logger log = LoggerFactory.getLogger(LossListeners.class);
    private static final VarHandle OF_GRANT;
    private static final VarHandle UNREPORTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            OF_GRANT = lookup.findVarHandle(HeldGrant.class, "lossListeners", LossListeners.class);
            UNREPORTED = lookup.findVarHandle(HeldGrant.class, "lossUnreported", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Consumer<LockLostException>> waiting = new ArrayList<>();
    /** The grant's description, built only when a listener fails. */
    private final Supplier<String> describe;

    private LockLostException told;

    LossListeners(Supplier<String> describe) {
        this.describe = describe;
    }

    /** The listeners of {@code held}, made by its first {@code onLost} or its loss, whichever comes first. */
    static LossListeners of(HeldGrant held) {
        LossListeners current = held.lossListeners;
        if (current != null) {
            return current;
        }
        // Described only if a listener fails: building the text for every grant weighs on the hot path.
        LossListeners made = new LossListeners(held::describe);
        LossListeners witness = (LossListeners) OF_GRANT.compareAndExchange(held, null, made);
        return witness == null ? made : witness;
    }

    /**
     * Tells {@code held}'s listeners that it is {@code lost}, and the client's at once with {@code
     * reportNow}; else (on a renewal thread that still has the grant taken) later by {@link #report}.
     */
    static void lost(HeldGrant held, LockLostException lost, boolean reportNow) {
        of(held).tell(lost, true);
        held.lossUnreported = true;
        if (reportNow) {
            report(held);
        }
    }

    /** Tells the client's listeners of {@code held}'s loss, once; the renewal thread calls it after it let go. */
    static void report(HeldGrant held) {
        if (UNREPORTED.compareAndSet(held, true, false)) {
            held.client.events.leaseLost(held.acquisition, held.lostCause());
        }
    }

    /** Calls {@code listener} once the loss is told, or now if it was. */
    void add(Consumer<LockLostException> listener) {
        if (listener == null) {
            throw new NullPointerException("listener");
        }
        LockLostException lost;
        lock.lock();
        try {
            lost = told;
            if (lost == null) {
                waiting.add(listener);
                return;
            }
        } finally {
            lock.unlock();
        }
        call(listener, lost);
    }

    /**
     * Tells every listener added so far. With {@code remember}, listeners added later are called at
     * once with the same loss (the grant is lost); without it (a loss found at release, when the
     * grant is gone anyway), they are kept and never called.
     */
    void tell(LockLostException lost, boolean remember) {
        List<Consumer<LockLostException>> toCall;
        lock.lock();
        try {
            if (remember) {
                told = lost;
            }
            toCall = List.copyOf(waiting);
            waiting.clear();
        } finally {
            lock.unlock();
        }
        toCall.forEach(listener -> call(listener, lost));
    }

    private void call(Consumer<LockLostException> listener, LockLostException lost) {
        try {
            listener.accept(lost);
        } catch (RuntimeException e) {
            log.warn("{}: an onLost listener failed", describe.get(), e);
        }
    }
}
