package dev.baton.check;

import dev.baton.check.HistoryEvent.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The events of one check run, from every client and from the orchestrator, in arrival order; {@link
 * #events()} sorts them by the host's monotonic clock. It also tells the fault scheduler who holds a
 * lock right now.
 */
final class History {
    private final ConcurrentLinkedQueue<HistoryEvent> events = new ConcurrentLinkedQueue<>();
    private final Map<Integer, String> holding = new ConcurrentHashMap<>();

    void add(HistoryEvent event) {
        events.add(event);
        switch (event.kind()) {
            case ACQUIRED -> holding.put(event.client(), event.lock());
            case RELEASING, KILLED -> holding.remove(event.client());
            default -> {}
        }
    }

    /** Clients that hold a lock now, as far as their last printed line tells. */
    List<Integer> holders() {
        return new ArrayList<>(holding.keySet());
    }

    /** The lock {@code client} holds now, or null. */
    String heldBy(int client) {
        return holding.get(client);
    }

    /** Every event so far, by time. */
    List<HistoryEvent> events() {
        List<HistoryEvent> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(HistoryEvent::nanos));
        return sorted;
    }

    long count(Kind kind) {
        return events.stream().filter(e -> e.kind() == kind).count();
    }
}
