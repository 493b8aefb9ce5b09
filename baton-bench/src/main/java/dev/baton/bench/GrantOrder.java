package dev.baton.bench;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the waiters of the async-waiters scenario ({@link AsyncWaitersBench}) saw: that each was
 * granted once, that no two held one name at once, and in what order each name's waiters were served.
 * Waiter {@code i} waits for name {@code i % names} and is the {@code i / names}-th to ask for it, so
 * a name's arrival order is known without a clock.
 *
 * <p>In arrival order: a grant that went to the earliest waiter of its name still waiting (it
 * overtook nobody). The share of such grants is 1 for a fair line; a grant that overtakes another
 * counts once, not once more for each waiter it passed.
 */
final class GrantOrder {
    private final int names;
    private final AtomicIntegerArray grantsPerWaiter;
    private final AtomicBoolean[] inside;
    private final BitSet[] served;
    private final AtomicLong inOrder = new AtomicLong();
    private final AtomicLong granted = new AtomicLong();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    GrantOrder(int waiters, int names) {
        this.names = names;
        this.grantsPerWaiter = new AtomicIntegerArray(waiters);
        this.inside = new AtomicBoolean[names];
        this.served = new BitSet[names];
        for (int n = 0; n < names; n++) {
            inside[n] = new AtomicBoolean();
            served[n] = new BitSet();
        }
    }

    /** The name waiter {@code waiter} asks for. */
    int nameOf(int waiter) {
        return waiter % names;
    }

    /** Waiter {@code waiter} holds its name now (before it releases, {@link #leaving}). */
    void granted(int waiter) {
        int name = nameOf(waiter);
        int place = waiter / names;
        grantsPerWaiter.incrementAndGet(waiter);
        granted.incrementAndGet();
        if (!inside[name].compareAndSet(false, true)) {
            overlaps.incrementAndGet();
        }
        BitSet line = served[name];
        synchronized (line) {
            if (line.nextClearBit(0) == place) {
                inOrder.incrementAndGet();
            }
            line.set(place);
        }
    }

    /** Waiter {@code waiter} is about to release its name. */
    void leaving(int waiter) {
        inside[nameOf(waiter)].set(false);
    }

    void failed() {
        errors.incrementAndGet();
    }

    long granted() {
        return granted.get();
    }

    long overlaps() {
        return overlaps.get();
    }

    long errors() {
        return errors.get();
    }

    /** How many waiters were granted other than exactly once. */
    long notGrantedOnce() {
        long wrong = 0;
        for (int i = 0; i < grantsPerWaiter.length(); i++) {
            if (grantsPerWaiter.get(i) != 1) {
                wrong++;
            }
        }
        return wrong;
    }

    /** The share of grants made in arrival order; NaN before any grant. */
    double inOrderShare() {
        long all = granted.get();
        return all == 0 ? Double.NaN : inOrder.get() / (double) all;
    }
}
