package dev.baton.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * CPU time used so far by this JVM (the clients, and any server that runs inside it: ZooKeeper, H2)
 * and by each server process it started (its descendant processes: etcd, Redis, MariaDB, Azurite),
 * so that a run can report CPU per pair. On a busy two-core machine throughput swings with whatever
 * else runs; CPU per operation moves far less, and it tells where the time goes.
 *
 * <p>Server CPU comes from {@code /proc/<pid>/stat} (user + system ticks at Linux's 100 per second),
 * so it is only known on Linux, and only for servers that stay children of this JVM, or whose root
 * process was {@linkplain #watch(long) named} (an embedded PostgreSQL detaches from the process that
 * started it: a backend that names its postmaster gets its CPU and its backends' counted too).
 */
record CpuSample(long clientNanos, Map<Long, Long> serverNanos) {
    private static final long NANOS_PER_TICK = 10_000_000;
    /** Server processes outside this JVM's descendants whose process trees count as server CPU. */
    private static final Set<Long> WATCHED = ConcurrentHashMap.newKeySet();

    /** Counts {@code pid} and its descendants as server CPU until {@link #unwatch}. */
    static void watch(long pid) {
        WATCHED.add(pid);
    }

    static void unwatch(long pid) {
        WATCHED.remove(pid);
    }

    static CpuSample now() {
        long client = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            client = os.getProcessCpuTime();
        }
        Map<Long, Long> servers = new HashMap<>();
        java.util.function.Consumer<ProcessHandle> count = process -> {
            long ticks = ticks(process.pid());
            if (ticks >= 0) {
                servers.put(process.pid(), ticks * NANOS_PER_TICK);
            }
        };
        ProcessHandle.current().descendants().forEach(count);
        for (long root : WATCHED) {
            ProcessHandle.of(root).ifPresent(process -> {
                count.accept(process);
                process.descendants().forEach(count);
            });
        }
        return new CpuSample(client, Map.copyOf(servers));
    }

    /** CPU this JVM used since {@code earlier}; -1 if the JVM does not tell. */
    long clientNanosSince(CpuSample earlier) {
        return clientNanos < 0 || earlier.clientNanos < 0 ? -1 : clientNanos - earlier.clientNanos;
    }

    /** CPU the server processes used since {@code earlier}; -1 if no server process was seen. */
    long serverNanosSince(CpuSample earlier) {
        if (serverNanos.isEmpty()) {
            return -1;
        }
        long used = 0;
        for (Map.Entry<Long, Long> server : serverNanos.entrySet()) {
            used += Math.max(0, server.getValue() - earlier.serverNanos.getOrDefault(server.getKey(), 0L));
        }
        return used;
    }

    /** User plus system ticks of a process, or -1 if {@code /proc} does not tell. */
    private static long ticks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) may hold spaces: count fields from its closing parenthesis.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
