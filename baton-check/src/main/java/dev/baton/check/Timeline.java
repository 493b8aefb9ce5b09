package dev.baton.check;

import java.time.Duration;
import java.util.List;

/**
 * A few seconds of a run around its longest overlap, for a picture in the report: each hold as a bar
 * on its client's line, and the faults as marks. Times are milliseconds from the window's start.
 *
 * @param window how long the excerpt is
 * @param bars the holds that fall in the window
 * @param marks the faults that fall in it
 */
public record Timeline(Duration window, List<Bar> bars, List<Mark> marks) {

    public Timeline {
        bars = List.copyOf(bars);
        marks = List.copyOf(marks);
    }

    @Override
    public String toString() {
        return "Timeline[" + window.toMillis() + " ms, " + bars.size() + " holds, "
                + marks.stream().filter(Mark::fault).count() + " faults]";
    }

    /**
     * One hold.
     *
     * @param overlapped granted while another client held the lock
     * @param toldLost its holder learnt that it had lost the lock
     */
    public record Bar(
            int client,
            String lock,
            long token,
            long fromMillis,
            long toMillis,
            boolean overlapped,
            boolean toldLost) {}

    /**
     * A fault: {@code what} is "killed", "stopped or cut off" or "back"; or what the client saw: it was
     * told it lost a lock ({@link #TOLD_LOST}), an attempt failed ({@link #FAILED}).
     */
    public record Mark(int client, String what, long atMillis) {
        /** The start of {@code what} when the client was told it lost a lock. */
        public static final String TOLD_LOST = "told it lost";
        /** The start of {@code what} when an attempt failed with an error. */
        public static final String FAILED = "an attempt failed";

        /** {@return whether this is a fault (else it is something the client saw)} */
        public boolean fault() {
            return !what.startsWith(TOLD_LOST) && !what.startsWith(FAILED);
        }
    }
}
