package dev.baton.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Samples the JVM's Baton threads (named {@code baton-...}) while a measurement runs: the most alive
 * at once, and at that moment how many of each kind ({@code baton-<n>-call-<m>} counts as {@code
 * call}); and the most threads of any kind alive at once (the JVM's peak). Its own sampling thread is
 * not a Baton thread. A sample lists the threads without their stacks: with thousands of blocking
 * waiters, taking every stack 50 times a second would stop the JVM long enough to slow what it
 * measures.
 */
final class BatonThreads implements AutoCloseable {
    private static final long SAMPLE_MILLIS = 20;
    private static final Pattern NUMBER = Pattern.compile("-\\d+");

    private final ScheduledExecutorService sampler;
    private final ThreadMXBean jvm = ManagementFactory.getThreadMXBean();
    private final ThreadGroup root;
    private Thread[] listed = new Thread[64];
    private int most;
    private Map<String, Integer> kinds = Map.of();

    private BatonThreads() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "bench-thread-sampler");
            thread.setDaemon(true);
            return thread;
        });
        this.sampler = executor;
        ThreadGroup group = Thread.currentThread().getThreadGroup();
        while (group.getParent() != null) {
            group = group.getParent();
        }
        this.root = group;
        jvm.resetPeakThreadCount();
    }

    /** Starts sampling now, every 20 ms, until {@link #close}. */
    static BatonThreads sample() {
        BatonThreads threads = new BatonThreads();
        threads.sampleOnce();
        threads.sampler.scheduleAtFixedRate(threads::sampleOnce, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
        return threads;
    }

    private synchronized void sampleOnce() {
        int alive = root.enumerate(listed);
        while (alive == listed.length) {
            listed = new Thread[listed.length * 2];
            alive = root.enumerate(listed);
        }
        Map<String, Integer> now = new TreeMap<>();
        int count = 0;
        for (int i = 0; i < alive; i++) {
            String name = listed[i].getName();
            if (name.startsWith("baton-")) {
                count++;
                now.merge(kind(name), 1, Integer::sum);
            }
        }
        if (count > most) {
            most = count;
            kinds = now;
        }
        Arrays.fill(listed, 0, alive, null);
    }

    /**
     * The name without {@code baton-} and its numbers: {@code call} for {@code baton-3-call-2}, {@code
     * renewal-call} for {@code baton-renewal-3-call-1}.
     */
    static String kind(String name) {
        String kind = NUMBER.matcher(name.substring("baton".length())).replaceAll("");
        return kind.startsWith("-") ? kind.substring(1) : kind;
    }

    /** The most Baton threads alive at once since sampling started. */
    synchronized int most() {
        return most;
    }

    /** The kinds at that moment, e.g. {@code call 4, renewal 2, wait 2}. */
    synchronized String kinds() {
        return kinds.entrySet().stream()
                .map(kind -> kind.getKey() + " " + kind.getValue())
                .collect(Collectors.joining(", "));
    }

    /** The most threads of any kind alive at once since sampling started (the JVM's peak). */
    int mostInJvm() {
        return jvm.getPeakThreadCount();
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        sampleOnce();
    }
}
