package dev.baton.micrometer;

import io.micrometer.tracing.test.simple.SimpleSpan;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Renders the spans a {@code SimpleTracer} recorded as an indented tree (event times are in microseconds). */
final class SpanTree {
    private SpanTree() {}

    static String render(Collection<SimpleSpan> spans) {
        StringBuilder out = new StringBuilder();
        List<SimpleSpan> sorted = spans.stream()
                .sorted(Comparator.comparing(SimpleSpan::getStartTimestamp))
                .toList();
        long origin = sorted.isEmpty() ? 0 : sorted.get(0).getStartTimestamp().toEpochMilli();
        for (SimpleSpan root : sorted) {
            if (root.getParentId() == null || root.getParentId().isEmpty()) {
                render(root, sorted, 0, origin, out);
            }
        }
        return out.toString();
    }

    private static void render(SimpleSpan span, List<SimpleSpan> all, int depth, long origin, StringBuilder out) {
        long start = span.getStartTimestamp().toEpochMilli() - origin;
        long millis = Duration.between(span.getStartTimestamp(), span.getEndTimestamp())
                .toMillis();
        out.append("  ".repeat(depth))
                .append(span.getName())
                .append(" [+")
                .append(start)
                .append(" ms, ")
                .append(millis)
                .append(" ms]");
        Map<String, String> tags = new TreeMap<>(span.getTags());
        if (!tags.isEmpty()) {
            out.append(' ').append(tags);
        }
        if (span.getError() != null) {
            out.append(" error=").append(span.getError().getClass().getSimpleName());
        }
        out.append('\n');
        span.getEvents().forEach(event -> out.append("  ".repeat(depth + 1))
                .append("event +")
                .append(event.getKey() / 1_000 - origin)
                .append(" ms: ")
                .append(event.getValue())
                .append('\n'));
        for (SimpleSpan child : all) {
            if (span.getSpanId().equals(child.getParentId())) {
                render(child, all, depth + 1, origin, out);
            }
        }
    }
}
