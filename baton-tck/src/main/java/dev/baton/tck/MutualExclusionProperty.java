package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The kit's mutual-exclusion property ({@link LockBackendContract.MutualExclusion}): critical
 * sections by eight threads of one client, by threads of three clients and by three processes never
 * overlap, a counter only the lock protects comes out exact, and fencing tokens strictly increase.
 */
abstract class MutualExclusionProperty {
    private final LockBackendContract contract;

    MutualExclusionProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void eightThreadsOnOneClientNeverOverlap() throws Exception {
        LockClient client = contract.client();
        String name = contract.lockName();
        CriticalSections sections = new CriticalSections();
        int threadsCount = 8;
        // Each grant but the first is a hand-over with seven threads of the client waiting.
        int iterations = 25;
        Duration run = KitTime.bulkWork(threadsCount * iterations);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threadsCount; t++) {
            done.add(contract.inThread(() -> {
                sections.run(client.lock(name), iterations, run);
                return null;
            }));
        }
        for (Future<?> future : done) {
            Await.result(future, run);
        }
        assertThat(sections.overlaps.get()).as("overlapping critical sections").isZero();
        assertThat(sections.counter).isEqualTo((long) threadsCount * iterations);
        CriticalSections.assertStrictlyIncreasing(sections.tokens);
    }

    @Test
    void threeClientsNeverOverlap() throws Exception {
        String name = contract.lockName();
        CriticalSections sections = new CriticalSections();
        int clients = 3;
        int threadsPerClient = 3;
        int iterations = 15;
        Duration run = KitTime.bulkWork(clients * threadsPerClient * iterations);
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            LockClient client = contract.client();
            for (int t = 0; t < threadsPerClient; t++) {
                done.add(contract.inThread(() -> {
                    sections.run(client.lock(name), iterations, run);
                    return null;
                }));
            }
        }
        for (Future<?> future : done) {
            Await.result(future, run);
        }
        assertThat(sections.overlaps.get()).as("overlapping critical sections").isZero();
        assertThat(sections.counter).isEqualTo((long) clients * threadsPerClient * iterations);
        CriticalSections.assertStrictlyIncreasing(sections.tokens);
    }

    @Test
    void threeProcessesNeverOverlap() throws Exception {
        String name = contract.lockName();
        Path dir = Files.createTempDirectory("baton-tck");
        Path counter = dir.resolve("counter");
        Path marker = dir.resolve("inside");
        try {
            Files.writeString(counter, "0", StandardCharsets.UTF_8);
            // Three processes: the JVM's two workers (ForkedWorkers) and this JVM.
            int processes = 3;
            int iterations = 40;
            Duration lease = contract.lease(Duration.ofSeconds(10));
            // A worker started for this run warms up first (ColdStart).
            Duration run = KitTime.COLD_START.plus(KitTime.bulkWork(processes * iterations));
            List<ForkedWorkers.Run> others = ForkedWorkers.run(
                    processes - 1,
                    "count",
                    contract.fixture().uri(),
                    name,
                    Integer.toString(iterations),
                    counter.toString(),
                    marker.toString(),
                    Long.toString(lease.toMillis()));
            Future<String> here = contract.inThread(
                    () -> ForkedLockClient.count(contract.fixture().uri(), name, iterations, counter, marker, lease));
            assertThat(Await.result(here, run))
                    .as("what this JVM saw (null: no overlap)")
                    .isNull();
            for (ForkedWorkers.Run other : others) {
                assertThat(other.await(run))
                        .as("what another process saw; its worker's stderr:\n%s", other.stderrTail())
                        .isEqualTo("DONE");
            }
            assertThat(Long.parseLong(
                            Files.readString(counter, StandardCharsets.UTF_8).trim()))
                    .isEqualTo((long) processes * iterations);
            assertThat(marker).doesNotExist();
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
