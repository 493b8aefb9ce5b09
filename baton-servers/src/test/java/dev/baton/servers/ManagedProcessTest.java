package dev.baton.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ManagedProcess} on small shell scripts: readiness, port clashes, stopping, killing, closing. */
class ManagedProcessTest {

    @TempDir
    Path tmp;

    private ManagedProcessBuilder builder(Path dir) throws IOException {
        Files.createDirectories(dir);
        return ManagedProcess.builder("script", dir.resolve("out.log"))
                .portTakenWhen("Address already in use")
                .deleteOnClose(dir);
    }

    private static List<String> sh(String script) {
        return List.of("/bin/sh", "-c", script);
    }

    /** Ready once the script printed {@code up}. */
    private static ManagedProcess.Probe printedUp(Path dir) {
        return port -> Files.readString(dir.resolve("out.log")).contains("up");
    }

    @Test
    void startsOnceReadyAndClosesOnceDeletingItsPaths() throws Exception {
        Path dir = tmp.resolve("a");
        ManagedProcess process = builder(dir).build();
        assertThat(process.start(sh("echo up; exec sleep 60"), 7, printedUp(dir)))
                .isTrue();
        assertThat(process.isRunning()).isTrue();
        assertThat(process.pid()).isPositive();
        assertThat(process).hasToString("script on port 7");

        process.close();
        assertThat(process.isRunning()).isFalse();
        assertThat(dir).doesNotExist();
        process.close(); // once: nothing more to do
        assertThatThrownBy(() -> process.start(sh("exit 0"), 7, port -> true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was closed");
    }

    @Test
    void closeKillsWhatIgnoresItsStopSignalAfterTheGraceAndWhatItStarted() throws Exception {
        Path dir = tmp.resolve("b");
        ManagedProcess process =
                builder(dir).stop("TERM", Duration.ofMillis(200)).build();
        // SIGTERM is ignored by the shell and by the sleep it starts (ignored signals are inherited)
        assertThat(process.start(sh("trap '' TERM; sleep 60 & echo up; wait"), 1, printedUp(dir)))
                .isTrue();
        ProcessHandle shell = ProcessHandle.of(process.pid()).orElseThrow();
        List<ProcessHandle> below = shell.descendants().toList();
        assertThat(below).isNotEmpty();

        process.close();
        assertThat(shell.isAlive()).isFalse();
        assertThat(below).noneMatch(ProcessHandle::isAlive);
    }

    @Test
    void aPausedProcessIsStillStoppedByClose() throws Exception {
        Path dir = tmp.resolve("c");
        ManagedProcess process = builder(dir).build();
        process.start(sh("echo up; exec sleep 60"), 1, printedUp(dir));
        process.signal("STOP", "pause");
        assertThat(process.isRunning()).isTrue();
        process.close();
        assertThat(process.isRunning()).isFalse();
    }

    @Test
    void killEndsTheProcessAndItsChildrenAndRestartRunsTheCommandAgain() throws Exception {
        Path dir = tmp.resolve("d");
        try (ManagedProcess process = builder(dir).build()) {
            process.start(sh("sleep 60 & echo up; wait"), 1, printedUp(dir));
            long first = process.pid();
            List<ProcessHandle> below =
                    ProcessHandle.of(first).orElseThrow().descendants().toList();

            process.kill();
            assertThat(process.isRunning()).isFalse();
            assertThat(below).noneMatch(ProcessHandle::isAlive);
            assertThatThrownBy(() -> process.signal("CONT", "resume"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot resume script on port 1: it is not running");

            process.restart(false, Duration.ofSeconds(1));
            assertThat(process.isRunning()).isTrue();
            assertThat(process.pid()).isNotEqualTo(first);
        }
    }

    @Test
    void aTakenPortIsReportedAndTheNextPortTried() throws Exception {
        Path dir = tmp.resolve("e");
        try (ManagedProcess process = builder(dir).build()) {
            assertThat(process.start(sh("echo 'bind: Address already in use'; exit 1"), 1, port -> false))
                    .isFalse();

            PrimitiveIterator.OfInt ports = IntStream.of(1, 2).iterator();
            int port = process.startOnFreePort(
                    ports::nextInt,
                    3,
                    p -> sh(p == 1 ? "echo 'Address already in use'; exit 1" : "echo up; exec sleep 60"),
                    printedUp(dir));
            assertThat(port).isEqualTo(2);
            assertThat(process.isRunning()).isTrue();
        }
    }

    @Test
    void anExitWhileStartingThrowsWithTheLogTail() throws Exception {
        Path dir = tmp.resolve("f");
        try (ManagedProcess process = builder(dir).build()) {
            assertThatThrownBy(() -> process.start(sh("echo 'no config here'; exit 3"), 1, port -> false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("script on port 1 exited with code 3 while starting")
                    .hasMessageContaining("no config here");
        }
    }

    @Test
    void aProcessNotReadyInTimeIsKilled() throws Exception {
        Path dir = tmp.resolve("g");
        try (ManagedProcess process =
                builder(dir).readyTimeout(Duration.ofSeconds(1)).build()) {
            assertThatThrownBy(() -> process.start(sh("echo waiting; exec sleep 60"), 1, port -> false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("script on port 1 was not ready within 1 s")
                    .hasMessageContaining("waiting");
            assertThat(process.isRunning()).isFalse();
        }
    }

    @Test
    void aFailedStartUpClosesAndDeletes() throws Exception {
        Path dir = tmp.resolve("h");
        ManagedProcess process = builder(dir).build();
        assertThatThrownBy(() -> process.closeOnFailure(() -> {
                    process.start(sh("echo up; exec sleep 60"), 1, printedUp(dir));
                    throw new IOException("the first request failed");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("could not start script: java.io.IOException: the first request failed");
        assertThat(process.isRunning()).isFalse();
        assertThat(dir).doesNotExist();
    }

    @Test
    void anExternalStandInStartsNothingAndRefusesFaults() {
        ManagedProcess external = ManagedProcess.external("the external thing named by X");
        assertThat(external.external()).isTrue();
        assertThat(external.pid()).isEqualTo(-1);
        assertThat(external.isRunning()).isFalse();
        assertThatThrownBy(external::kill)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot kill the external thing named by X");
        assertThatThrownBy(() -> external.restart(true, Duration.ZERO))
                .hasMessage("cannot restart the external thing named by X");
        external.close();
    }
}
