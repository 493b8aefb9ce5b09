package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class PostgresBinariesTest {

    @Test
    void resourceNameFollowsZonkysScheme() {
        assertThat(PostgresBinaries.resourceNames()).contains("postgres-linux-x86_64.txz");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void concurrentExtractionsAgreeAndLeaveNoTemporaryFiles(@TempDir Path cacheRoot) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(2);
        List<CompletableFuture<Path>> installs = Stream.generate(() -> CompletableFuture.supplyAsync(() -> {
                    try {
                        barrier.await(1, TimeUnit.MINUTES);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return PostgresBinaries.install(cacheRoot);
                }))
                .limit(2)
                .toList();
        Path first = installs.get(0).get(4, TimeUnit.MINUTES);
        Path second = installs.get(1).get(4, TimeUnit.MINUTES);

        assertThat(first).isEqualTo(second);
        assertThat(first.resolve("bin/postgres")).isExecutable();
        assertThat(first.resolve("bin/initdb")).isExecutable();
        assertThat(first.resolve("share/postgresql/postgres.bki")).isRegularFile();
        try (Stream<Path> entries = Files.list(cacheRoot)) {
            assertThat(entries).containsExactly(first);
        }
        // A second call finds the existing tree.
        assertThat(PostgresBinaries.install(cacheRoot)).isEqualTo(first);
    }
}
