package dev.baton.check;

import dev.baton.check.HistoryEvent.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a run's history and finds what went wrong: holds of one lock by two clients at once, writes
 * the fenced resource caught or let through from a holder that was no longer the latest, losses the
 * holder was never told about, and how long a lock stayed taken after its holder died.
 *
 * <p>Conservative by construction: a hold lasts from the moment acquire returned to the moment
 * release was called (or the holder was killed), so an overlap is a real one, never an artefact of
 * the time a call took.
 */
final class Checker {

    /** One hold of one lock by one client, rebuilt from its events. */
    static final class Hold {
        final int client;
        final String lock;
        final long token;
        final long start;
        long end = Long.MAX_VALUE;
        boolean dead;
        boolean told;
        /**
         * When the holder was first told that it lost the lock (onLost, or a grant already invalid
         * when stamped), by the host's monotonic clock; {@link Long#MAX_VALUE} if never before release.
         */
        long toldAt = Long.MAX_VALUE;
        /**
         * The lease was already invalid when the client stamped the grant: stopped between acquire
         * returning and the stamp, so the stamp may come after later holders' grants. The holder knew,
         * so it takes the lock from nobody, and the fence was right to refuse its writes.
         */
        final boolean lostAtStart;

        boolean isolated;
        /** Granted while another client still held the lock. */
        boolean overlapped;
        /**
         * Every holder it overlapped with was stopped or cut off at the time, or had been told
         * before this grant that it lost the lock.
         */
        boolean overlappedIsolated = true;

        final List<HistoryEvent> writes = new ArrayList<>();
        /** When the holder asked its lease and heard that it still held the lock ({@link Kind#BELIEVED}). */
        final List<Long> believed = new ArrayList<>();

        Hold(HistoryEvent acquired) {
            this.client = acquired.client();
            this.lock = acquired.lock();
            this.token = acquired.token();
            this.start = acquired.nanos();
            this.lostAtStart = acquired.flag();
            this.told = lostAtStart;
            this.toldAt = lostAtStart ? start : Long.MAX_VALUE;
        }
    }

    private Checker() {}

    /** Checks the events of a run that ended at {@code endNanos}. */
    static CheckResult check(List<HistoryEvent> events, long endNanos) {
        List<Hold> holds = rebuild(events, endNanos);
        Map<String, List<Hold>> byLock = new HashMap<>();
        for (Hold hold : holds) {
            byLock.computeIfAbsent(hold.lock, k -> new ArrayList<>()).add(hold);
        }
        int overlaps = 0;
        int isolatedOverlaps = 0;
        long longest = 0;
        Hold longestAt = null;
        int unreported = 0;
        int staleCaught = 0;
        int staleAccepted = 0;
        int staleUnfenceable = 0;
        int freshRefused = 0;
        for (List<Hold> ofLock : byLock.values()) {
            ofLock.sort(Comparator.comparingLong(h -> h.start));
            for (int i = 0; i < ofLock.size(); i++) {
                Hold earlier = ofLock.get(i);
                boolean lost = false;
                for (int j = i + 1; j < ofLock.size() && ofLock.get(j).start < earlier.end; j++) {
                    Hold later = ofLock.get(j);
                    if (later.client == earlier.client || later.lostAtStart) {
                        continue;
                    }
                    lost = true;
                    later.overlapped = true;
                    // Explained: the earlier holder was stopped or cut off (and did not, back at work,
                    // still believe the lock its own after this grant), or it already knew that its
                    // lease had ended (its renewals went unanswered, as when the servers stall), so no
                    // two holders each believed the lock theirs at once.
                    later.overlappedIsolated &=
                            (earlier.isolated && !believedAfter(earlier, later.start)) || earlier.toldAt <= later.start;
                    long overlap = Math.min(earlier.end, later.end) - later.start;
                    if (overlap > longest || longestAt == null) {
                        longest = Math.max(longest, overlap);
                        longestAt = later;
                    }
                }
                if (lost && !earlier.dead && !earlier.told) {
                    unreported++;
                }
                for (HistoryEvent write : earlier.writes) {
                    // The fence judged the write somewhere between its sending and its answer: an
                    // accepted write is stale only if superseded before it was sent, a refused one
                    // already if superseded before the answer came (the holder may have been stopped
                    // between stamping the write and sending it).
                    boolean stale = earlier.lostAtStart
                            || supersededBefore(ofLock, earlier, write.flag() ? write.nanos() : write.endNanos());
                    if (stale && write.flag()) {
                        if (newerWriteAcceptedBefore(ofLock, earlier, write.nanos())) {
                            staleAccepted++; // the fence had seen the newer holder and still let it through
                        } else {
                            staleUnfenceable++; // the newer holder had not written yet: no fence can tell
                        }
                    } else if (stale) {
                        staleCaught++;
                    } else if (!write.flag()) {
                        freshRefused++;
                    }
                }
            }
        }
        for (Hold hold : holds) {
            if (hold.overlapped) {
                overlaps++;
                if (hold.overlappedIsolated) {
                    isolatedOverlaps++;
                }
            }
        }
        // The picture goes where it says most: the first overlap no fault explains, else the longest.
        Hold centre = holds.stream()
                .filter(h -> h.overlapped && !h.overlappedIsolated)
                .findFirst()
                .orElse(longestAt);
        Recovery recovery = recovery(events, holds);
        long releases = events.stream().filter(e -> e.kind() == Kind.RELEASING).count();
        long woken = events.stream().filter(e -> e.kind() == Kind.WOKEN).count();
        return new CheckResult(
                holds.size(),
                events.stream().filter(e -> e.kind() == Kind.FAILED).count(),
                overlaps,
                isolatedOverlaps,
                Duration.ofNanos(longest),
                staleCaught,
                staleAccepted,
                staleUnfenceable,
                freshRefused,
                unreported,
                recovery.times(),
                recovery.never(),
                releases == 0 ? 0 : (double) woken / releases,
                centre == null ? null : timeline(events, holds, centre.start));
    }

    /** Whether {@code hold}'s holder asked and heard that it still held the lock at {@code at} or later. */
    private static boolean believedAfter(Hold hold, long at) {
        return hold.believed.stream().anyMatch(asked -> asked > at);
    }

    /** How much of the run a timeline shows, centred on the grant that overlapped longest. */
    static final Duration TIMELINE_WINDOW = Duration.ofSeconds(4);

    private static Timeline timeline(List<HistoryEvent> events, List<Hold> holds, long centre) {
        long from = centre - TIMELINE_WINDOW.toNanos() / 2;
        long to = centre + TIMELINE_WINDOW.toNanos() / 2;
        List<Timeline.Bar> bars = new ArrayList<>();
        for (Hold hold : holds) {
            if (hold.start < to && hold.end > from) {
                bars.add(new Timeline.Bar(
                        hold.client,
                        hold.lock,
                        hold.token,
                        millis(Math.max(hold.start, from) - from),
                        millis(Math.min(hold.end, to) - from),
                        hold.overlapped,
                        hold.told));
            }
        }
        List<Timeline.Mark> marks = new ArrayList<>();
        for (HistoryEvent event : events) {
            if (event.nanos() < from || event.nanos() >= to) {
                continue;
            }
            String what =
                    switch (event.kind()) {
                        case KILLED -> "killed";
                        case ISOLATED -> "stopped or cut off";
                        case RECONNECTED -> "back";
                            // not faults, but what the client saw: when it learnt of a loss, when a call failed
                        case LOST -> Timeline.Mark.TOLD_LOST + " " + event.lock();
                        case FAILED -> Timeline.Mark.FAILED + " on " + event.lock();
                        default -> null;
                    };
            if (what != null) {
                marks.add(new Timeline.Mark(event.client(), what, millis(event.nanos() - from)));
            }
        }
        return new Timeline(TIMELINE_WINDOW, bars, marks);
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }

    /**
     * Whether another client was granted the lock after {@code hold} began and before {@code at} (a
     * grant already lost when stamped does not count: it was older than its stamp).
     */
    private static boolean supersededBefore(List<Hold> ofLock, Hold hold, long at) {
        for (Hold other : ofLock) {
            if (other.client != hold.client && !other.lostAtStart && other.start > hold.start && other.start < at) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a client granted the lock after {@code hold} began had a write accepted, answered before
     * {@code at}: the resource then knew a newer token when this write reached it.
     */
    private static boolean newerWriteAcceptedBefore(List<Hold> ofLock, Hold hold, long at) {
        for (Hold other : ofLock) {
            if (other.client == hold.client || other.lostAtStart || other.start <= hold.start) {
                continue;
            }
            for (HistoryEvent write : other.writes) {
                if (write.flag() && write.endNanos() < at) {
                    return true;
                }
            }
        }
        return false;
    }

    static List<Hold> rebuild(List<HistoryEvent> events, long endNanos) {
        List<Hold> holds = new ArrayList<>();
        Map<Integer, Hold> open = new HashMap<>();
        Map<Integer, Hold> last = new HashMap<>();
        Map<Integer, Long> isolatedSince = new HashMap<>();
        for (HistoryEvent event : events) {
            int client = event.client();
            Hold current = open.get(client);
            switch (event.kind()) {
                case ACQUIRED -> {
                    Hold hold = new Hold(event);
                    hold.isolated = isolatedSince.containsKey(client);
                    holds.add(hold);
                    open.put(client, hold);
                    last.put(client, hold);
                }
                case WROTE -> {
                    if (current != null) {
                        current.writes.add(event);
                    }
                }
                case BELIEVED -> {
                    if (current != null) {
                        current.believed.add(event.nanos());
                    }
                }
                case LOST -> {
                    // onLost may run after release returned; it belongs to the client's latest hold of that lock
                    Hold hold = last.get(client);
                    if (hold != null && hold.lock.equals(event.lock())) {
                        hold.told = true;
                        hold.toldAt = Math.min(hold.toldAt, event.nanos());
                    }
                }
                case RELEASING -> {
                    if (current != null) {
                        current.end = event.nanos();
                        current.told |= event.flag();
                        open.remove(client);
                    }
                }
                case KILLED -> {
                    if (current != null) {
                        current.end = event.nanos();
                        current.dead = true;
                        open.remove(client);
                    }
                }
                case ISOLATED -> {
                    isolatedSince.put(client, event.nanos());
                    if (current != null) {
                        current.isolated = true;
                    }
                }
                case RECONNECTED -> isolatedSince.remove(client);
                default -> {}
            }
        }
        for (Hold hold : open.values()) {
            hold.end = endNanos;
        }
        return holds;
    }

    record Recovery(List<Duration> times, int never) {}

    /** For each holder killed while holding: the time until any client was granted that lock again. */
    private static Recovery recovery(List<HistoryEvent> events, List<Hold> holds) {
        List<Duration> times = new ArrayList<>();
        int never = 0;
        for (Hold dead : holds) {
            if (!dead.dead) {
                continue;
            }
            long next = Long.MAX_VALUE;
            for (HistoryEvent event : events) {
                if (event.kind() == Kind.ACQUIRED && event.lock().equals(dead.lock) && event.nanos() > dead.end) {
                    next = event.nanos();
                    break;
                }
            }
            if (next == Long.MAX_VALUE) {
                never++;
            } else {
                times.add(Duration.ofNanos(next - dead.end));
            }
        }
        return new Recovery(times, never);
    }
}
