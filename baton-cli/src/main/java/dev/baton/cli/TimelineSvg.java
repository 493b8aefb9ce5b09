package dev.baton.cli;

import dev.baton.check.Timeline;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Draws a check run's {@link Timeline} as inline SVG: one line per client, each hold a bar (lock 0
 * blue, lock 1 green...), a hold granted while another client held the same lock outlined in red,
 * and the faults as marks on their client's line.
 */
final class TimelineSvg {
    private static final int WIDTH = 900;
    private static final int LEFT = 70;
    private static final int ROW = 22;
    private static final String[] LOCK_COLOURS = {"#4c78a8", "#54a24b", "#b279a2", "#9d755d"};

    private TimelineSvg() {}

    static String svg(Timeline timeline) {
        TreeSet<Integer> clients = new TreeSet<>();
        TreeSet<String> locks = new TreeSet<>();
        timeline.bars().forEach(bar -> {
            clients.add(bar.client());
            locks.add(bar.lock());
        });
        timeline.marks().forEach(mark -> clients.add(mark.client()));
        double scale = (WIDTH - LEFT - 10) / (double) timeline.window().toMillis();
        int height = ROW * clients.size() + 30;
        StringBuilder svg = new StringBuilder(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                        + " font-size=\"11\">\n",
                WIDTH,
                height));
        int row = 0;
        for (int client : clients) {
            int y = 10 + row * ROW;
            svg.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">client %d</text>\n", y + 13, client));
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                    LEFT,
                    y + ROW / 2,
                    WIDTH - 10,
                    y + ROW / 2));
            for (Timeline.Bar bar : timeline.bars()) {
                if (bar.client() != client) {
                    continue;
                }
                String colour = LOCK_COLOURS[locks.headSet(bar.lock()).size() % LOCK_COLOURS.length];
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s><title>%s token %d,"
                                + " %d-%d ms%s%s</title></rect>\n",
                        LEFT + bar.fromMillis() * scale,
                        y + 3,
                        Math.max(1.0, (bar.toMillis() - bar.fromMillis()) * scale),
                        ROW - 6,
                        colour,
                        bar.overlapped() ? " stroke=\"#d62728\" stroke-width=\"2\"" : "",
                        HtmlReport.escape(bar.lock()),
                        bar.token(),
                        bar.fromMillis(),
                        bar.toMillis(),
                        bar.overlapped() ? ", granted while another client held it" : "",
                        bar.toldLost() ? ", holder told it was lost" : ""));
            }
            for (Timeline.Mark mark : timeline.marks()) {
                if (mark.client() != client) {
                    continue;
                }
                double x = LEFT + mark.atMillis() * scale;
                svg.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"><title>%s at"
                                + " %d ms</title></line>\n",
                        x,
                        y,
                        x,
                        y + ROW,
                        mark.fault() ? "#d62728" : "#999",
                        HtmlReport.escape(mark.what()),
                        mark.atMillis()));
            }
            row++;
        }
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\">0 ms</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d ms</text>\n",
                LEFT,
                height - 4,
                WIDTH - 10,
                height - 4,
                timeline.window().toMillis()));
        return svg.append("</svg>\n").toString();
    }
}
