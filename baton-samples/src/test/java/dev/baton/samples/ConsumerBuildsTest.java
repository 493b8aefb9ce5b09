package dev.baton.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Builds every sample under {@code src/samples} as a user's application (its own POM importing only
 * baton-bom) against this reactor's artifacts, all in one Maven reactor ({@link SampleBuild}), and checks that each one built (its
 * dependencyConvergence rule passed), took and released a lock on each of its backends, and ran on one
 * Netty version. Writes {@code target/samples-report.txt}: each sample's Netty, gRPC, Vert.x and Lettuce
 * versions and the locks it took.
 */
class ConsumerBuildsTest {

    private static final Path SAMPLES = Path.of(System.getProperty("baton.samples.dir", "target/samples"));
    private static final Path REPORT = SAMPLES.resolveSibling("samples-report.txt");

    private static SampleServers servers;
    private static ExecutorService builds;
    private static Future<Map<Sample, SampleBuild.Result>> results;
    private static Path repository;
    private static List<Path> tail;
    private static Set<Path> downloadedBefore;

    @BeforeAll
    static void startServersAndBuilds() throws IOException {
        Path maven = Path.of(property("baton.samples.maven"));
        repository = Path.of(property("baton.samples.repo"));
        tail = SampleBuild.tailRepositories(
                property("baton.samples.tail"), System.getProperty("baton.samples.outer-tail", ""));
        Files.writeString(REPORT, "");
        servers = SampleServers.start();
        downloadedBefore = downloaded(repository);
        builds = Executors.newSingleThreadExecutor();
        results = builds.submit(
                () -> SampleBuild.runAll(SAMPLES, Sample.ALL, maven, repository, tail, servers.environment()));
    }

    @AfterAll
    static void stop() {
        if (builds != null) {
            builds.shutdownNow();
        }
        if (servers != null) {
            servers.close();
        }
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value)
                .as("system property %s (set by baton-samples' pom.xml)", name)
                .isNotBlank();
        return value;
    }

    @TestFactory
    Stream<DynamicTest> eachSampleBuildsAndTakesALockOnEachOfItsBackends() {
        return Sample.ALL.stream().map(sample -> dynamicTest(sample.name(), () -> check(sample)));
    }

    /**
     * The samples' build downloads only what none of the build's repositories holds: a file it
     * fetched from a remote repository into its own during this run is in none of the tails it was
     * given (files an earlier run fetched, kept in target/, are not judged).
     */
    @Test
    void theSamplesBuildDownloadsNothingTheBuildAlreadyHas() throws Exception {
        results.get(); // the whole build has run
        Set<Path> now = downloaded(repository);
        now.removeAll(downloadedBefore);
        // What this build reads, named here from the build's own settings rather than from what
        // SampleBuild passed on: its local repository and each of its tails.
        List<Path> build = Stream.concat(
                        Stream.of(property("baton.samples.tail")),
                        Stream.of(System.getProperty("baton.samples.outer-tail", "")
                                .split(",")))
                .map(String::strip)
                .filter(path -> !path.isEmpty() && !path.contains("${"))
                .map(Path::of)
                .filter(Files::isDirectory)
                .toList();
        List<Path> downloadedTwice = now.stream()
                .map(repository::relativize)
                .filter(relative -> build.stream().anyMatch(t -> Files.exists(t.resolve(relative))))
                .sorted()
                .toList();
        assertThat(downloadedTwice)
                .as("files the samples' build downloaded although one of %s holds them", build)
                .isEmpty();
    }

    /**
     * The files of a local repository that Maven downloaded from a remote one: each directory's
     * {@code _remote.repositories} names them as {@code <file>><repository id>=}; an empty id is a
     * file installed there (as the invoker plugin does), not downloaded.
     */
    private static Set<Path> downloaded(Path repository) throws IOException {
        Set<Path> files = new HashSet<>();
        if (!Files.isDirectory(repository)) {
            return files;
        }
        try (Stream<Path> paths = Files.walk(repository)) {
            for (Path marker : paths.filter(p -> p.getFileName().toString().equals("_remote.repositories"))
                    .toList()) {
                for (String line : Files.readAllLines(marker)) {
                    int at = line.indexOf('>');
                    if (!line.startsWith("#")
                            && at > 0
                            && !line.substring(at + 1).startsWith("=")) {
                        files.add(marker.resolveSibling(line.substring(0, at)));
                    }
                }
            }
        }
        return files;
    }

    private static void check(Sample sample) throws Exception {
        SampleBuild.Result result = results.get().get(sample);
        assertThat(result.exitCode())
                .as(
                        "%s: mvn verify failed (exit %d); its log, %s, ends:%n%s",
                        sample, result.exitCode(), result.logFile(), tail(result.log(), 60))
                .isZero();
        for (String backend : sample.backends()) {
            assertThat(result.sampleLines())
                    .as("%s: a lock taken and released on %s", sample, backend)
                    .anyMatch(line -> line.startsWith("baton-sample: " + backend + " took and released lock "));
        }
        TreeSet<String> netty = result.versions("io.netty", "netty-tcnative", "netty-jni-util");
        assertThat(netty)
                .as("%s: io.netty versions on the runtime class path", sample)
                .hasSizeLessThanOrEqualTo(1);
        if (!netty.isEmpty() && sample.bootNettyLine() != null) {
            assertThat(netty.first()).as("%s: Spring Boot's Netty", sample).startsWith(sample.bootNettyLine());
        } else if (!netty.isEmpty()) {
            assertThat(netty.first()).as("%s: baton-bom's Netty", sample).isEqualTo(property("baton.samples.netty"));
        }
        TreeSet<String> grpc = result.versions("io.grpc");
        if (!grpc.isEmpty()) {
            assertThat(grpc)
                    .as("%s: io.grpc versions, baton-bom's gRPC", sample)
                    .containsExactly(property("baton.samples.grpc"));
        }
        String line = sample + ": netty " + text(netty) + ", grpc " + text(result.versions("io.grpc")) + ", vert.x "
                + text(result.versions("io.vertx")) + ", reactor-core " + text(result.versions("io.projectreactor"))
                + ", lettuce " + text(result.versions("io.lettuce"))
                + System.lineSeparator()
                + String.join(
                        System.lineSeparator(),
                        result.sampleLines().stream().map(l -> "    " + l).toList()) + System.lineSeparator();
        System.out.print(line);
        synchronized (ConsumerBuildsTest.class) {
            Files.writeString(REPORT, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        }
    }

    private static String text(TreeSet<String> versions) {
        return versions.isEmpty() ? "-" : String.join("+", versions);
    }

    private static String tail(String log, int lines) {
        String[] all = log.split("\\R");
        return String.join(
                System.lineSeparator(), java.util.Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }
}
