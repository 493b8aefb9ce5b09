package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Scenario W, short: 200 waiters over 10 names on ZooKeeper, through both APIs. Every waiter is
 * granted once and alone, in arrival order, and the asynchronous run's Baton threads stay within the
 * goal whatever the number of waiters.
 */
@Timeout(180)
class AsyncWaitersBenchTest {
    /** The scenario's goal for the Baton threads of a client with any number of asynchronous waiters. */
    private static final int THREAD_GOAL = 16;

    @Test
    void everyWaiterIsGrantedOnceInArrivalOrderWithFewBatonThreads() throws Exception {
        AsyncWaitersBench.Settings settings =
                new AsyncWaitersBench.Settings(List.of("zookeeper"), 200, 10, Duration.ofMinutes(2));
        List<String> progress = new ArrayList<>();
        List<AsyncWaitersBench.Row> rows = AsyncWaitersBench.run(settings, progress::add);

        assertThat(rows).hasSize(2);
        assertThat(rows).filteredOn(AsyncWaitersBench.Row::async).hasSize(1);
        for (AsyncWaitersBench.Row row : rows) {
            String api = row.async() ? "async" : "blocking";
            assertThat(row.granted()).as("%s grants", api).isEqualTo(200);
            assertThat(row.notGrantedOnce())
                    .as("%s waiters not granted exactly once", api)
                    .isZero();
            assertThat(row.overlaps()).as("%s overlaps", api).isZero();
            assertThat(row.errors()).as("%s errors", api).isZero();
            assertThat(row.inOrderShare())
                    .as("%s share of grants in arrival order", api)
                    .isEqualTo(1.0);
            assertThat(row.grantsPerSecond()).as("%s rate", api).isPositive();
            assertThat(row.cpuMicrosPerGrant()).as("%s CPU", api).isPositive();
        }
        AsyncWaitersBench.Row async =
                rows.stream().filter(AsyncWaitersBench.Row::async).findFirst().orElseThrow();
        assertThat(async.batonThreads())
                .as("Baton threads with 200 asynchronous waiters")
                .isBetween(1, THREAD_GOAL);
        assertThat(async.jvmThreads())
                .as("threads in the JVM with 200 asynchronous waiters")
                .isLessThan(200);
        AsyncWaitersBench.Row blocking =
                rows.stream().filter(row -> !row.async()).findFirst().orElseThrow();
        assertThat(blocking.jvmThreads())
                .as("threads in the JVM with 200 blocking waiters, one each")
                .isGreaterThanOrEqualTo(200);

        String table = AsyncWaitersBench.table(settings, rows);
        assertThat(table)
                .contains("Scenario W: 200 concurrent waiters on one client over 10 names")
                .containsPattern("\\| zookeeper \\| async \\| 200 of 200 \\| 0 \\| 0 \\| 100\\.0 % \\| \\d+ \\(")
                .containsPattern(
                        "\\| zookeeper \\| blocking, platform threads \\| 200 of 200 \\| 0 \\| 0 \\| 100\\.0 % \\|");
        assertThat(progress).contains("zookeeper: 200 waiters over 10 names, async");
    }
}
