package dev.baton.internal;

import dev.baton.LockLostException;
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
 */
final class LossListeners {
    private static final Logger log = LoggerFactory.getLogger(LossListeners.class);

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Consumer<LockLostException>> waiting = new ArrayList<>();
    /** The grant's description, built only when a listener fails. */
    private final Supplier<String> describe;

    private LockLostException told;

    LossListeners(Supplier<String> describe) {
        this.describe = describe;
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
