package dev.baton.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
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

    @BeforeAll
    static void startServersAndBuilds() throws IOException {
        Path maven = Path.of(property("baton.samples.maven"));
        Path repository = Path.of(property("baton.samples.repo"));
        Path tail = Path.of(property("baton.samples.tail"));
        Files.writeString(REPORT, "");
        servers = SampleServers.start();
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
