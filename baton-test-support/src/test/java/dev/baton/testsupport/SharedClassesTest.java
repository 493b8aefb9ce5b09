package dev.baton.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedClassesTest {
    private static final String CLASS_PATH = System.getProperty("java.class.path");

    @Test
    void withoutADirectoryAChildStartsOnItsClassPathAsItIs() {
        List<Runnable> tasks = new ArrayList<>();
        assertThat(SharedClasses.options(null, CLASS_PATH, tasks::add)).containsExactly("-cp", CLASS_PATH);
        assertThat(SharedClasses.options(" ", CLASS_PATH, tasks::add)).containsExactly("-cp", CLASS_PATH);
        assertThat(tasks).isEmpty();
    }

    /**
     * The first child records its classes and runs from jars of the class path's directories; after
     * the dump the next child maps the archive: with {@code -Xshare:on} a JVM that cannot use it
     * refuses to start.
     */
    @Test
    void theFirstChildRecordsItsClassesAndTheNextMapsThem(@TempDir Path root) throws Exception {
        List<Runnable> tasks = new ArrayList<>();
        List<String> first = SharedClasses.options(root.toString(), CLASS_PATH, tasks::add);
        assertThat(first.get(0)).isEqualTo("-cp");
        assertThat(Arrays.stream(first.get(1).split(File.pathSeparator)))
                .as("every entry a jar")
                .allMatch(entry -> Files.isRegularFile(Path.of(entry)));
        assertThat(first).anyMatch(option -> option.startsWith("-XX:DumpLoadedClassList="));
        assertThat(tasks).hasSize(1);
        assertThat(runChild(first)).isEqualTo("ready");

        tasks.get(0).run();

        List<String> next = SharedClasses.options(root.toString(), CLASS_PATH, tasks::add);
        assertThat(next).anyMatch(option -> option.startsWith("-XX:SharedArchiveFile="));
        assertThat(tasks).as("recorded once").hasSize(1);
        List<String> strict = new ArrayList<>(next);
        strict.add("-Xshare:on");
        assertThat(runChild(strict)).isEqualTo("ready");
    }

    /** Runs {@link ForkedJavaTest.Child} with {@code options}, its input closed; its standard output. */
    private static String runChild(List<String> options) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.add(ForkedJavaTest.Child.class.getName());
        Process child = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(child.exitValue()).as("exit code; output: %s", out).isZero();
        return out.strip();
    }
}
