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
        return "Timeline[" + window.toMillis() + " ms, " + bars.size() + " holds, " + marks.size() + " faults]";
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

    /** A fault: {@code what} is "killed", "stopped or cut off" or "back". */
    public record Mark(int client, String what, long atMillis) {}
}
