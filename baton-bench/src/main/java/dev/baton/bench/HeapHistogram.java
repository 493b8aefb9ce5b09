package dev.baton.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * The live objects of this JVM by class, as {@code jcmd <pid> GC.class_histogram} prints them
 * (taking it runs a full collection first), read through the platform's DiagnosticCommand MBean.
 */
record HeapHistogram(Map<String, long[]> byClass, long totalBytes) {
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
    private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)");

    /** One class's share of a difference between two histograms. */
    record Contributor(String className, long instances, long bytes) {}

    /** Takes the histogram of live objects now. */
    static HeapHistogram take() {
        String text;
        try {
            text = (String) ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "gcClassHistogram",
                            new Object[] {new String[0]},
                            new String[] {String[].class.getName()});
        } catch (Exception e) {
            throw new IllegalStateException("the JVM cannot print a class histogram (GC.class_histogram): " + e, e);
        }
        Map<String, long[]> byClass = new HashMap<>();
        long total = 0;
        for (String line : text.split("\n")) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                byClass.merge(
                        row.group(3), new long[] {Long.parseLong(row.group(1)), Long.parseLong(row.group(2))}, (a, b) ->
                                new long[] {a[0] + b[0], a[1] + b[1]});
                continue;
            }
            Matcher sum = TOTAL.matcher(line);
            if (sum.find()) {
                total = Long.parseLong(sum.group(2));
            }
        }
        return new HeapHistogram(byClass, total);
    }

    /** The classes that grew most from {@code before} to this histogram, biggest first. */
    List<Contributor> grownSince(HeapHistogram before, int limit) {
        List<Contributor> grown = new ArrayList<>();
        byClass.forEach((name, now) -> {
            long[] then = before.byClass.getOrDefault(name, new long[2]);
            if (now[1] > then[1]) {
                grown.add(new Contributor(name, now[0] - then[0], now[1] - then[1]));
            }
        });
        grown.sort(Comparator.comparingLong(Contributor::bytes).reversed());
        return grown.subList(0, Math.min(limit, grown.size()));
    }
}
