package dev.baton.samples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The samples' Maven build: one reactor over every sample (an aggregator POM written beside them
 * that lists them as modules; each sample keeps its own POM, with no parent), which compiles each
 * sample, checks its dependency convergence and runs its lock test ({@code mvn verify}), then lists
 * each one's runtime dependencies; read back here per sample.
 *
 * <p>One reactor, not one build per sample: Maven's own JVM starts, loads its plugins and resolves
 * the BOMs once instead of once per sample. {@code --fail-at-end} builds every sample even when one
 * fails, and each sample's result is its section of the log and its line in the reactor summary.
 *
 * <p>The build resolves Baton from the private repository the invoker plugin filled from this reactor,
 * everything else from the build's own local repository and that build's own tails, as read-only
 * tails (Maven 3.9), and reaches the servers through the environment.
 */
final class SampleBuild {

    /** Limit for the whole build: far above the ~2 min ten samples take, to end a hung build. */
    private static final long TIMEOUT_MINUTES = 10;

    /** The dependency plugin the reactor already uses, named in full so that no newer one is looked up. */
    private static final String DEPENDENCY_LIST = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list";

    /** Where each sample's runtime dependencies are listed, relative to the sample's directory. */
    private static final String DEPENDENCIES = "target/runtime-dependencies.txt";

    /**
     * JVM options for Maven and the samples' test JVMs: the client compiler and the serial collector,
     * since C2's and G1's threads cost a JVM of a few seconds more CPU than they save it.
     */
    private static final String FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    /** The line that starts a module's section of the log: {@code --< dev.baton.samples:sample-x >--}. */
    private static final Pattern SECTION = Pattern.compile("^\\[INFO\\] -+< dev\\.baton\\.samples:(\\S+) >-+$");

    /** A module's line in the reactor summary: {@code sample-x 1 ...... SUCCESS [  3.2 s]}. */
    private static final Pattern SUMMARY =
            Pattern.compile("^\\[INFO\\] (sample-\\S+) \\S+ \\.* ?(SUCCESS|FAILURE|SKIPPED)\\b.*$");

    private SampleBuild() {}

    /**
     * The outcome of one sample's part of the build.
     *
     * @param exitCode 0 if the reactor built the sample, 1 if it failed or was skipped (or -1 after the
     *     timeout)
     * @param log the sample's section of the build's output
     * @param runtime the runtime dependencies as {@code group:artifact -> version}
     * @param logFile where the whole build's output was written
     */
    record Result(int exitCode, String log, Map<String, String> runtime, Path logFile) {

        /** The lines of the sample's own reports: {@code baton-sample: ...}. */
        List<String> sampleLines() {
            return log.lines()
                    .map(String::strip)
                    .filter(line -> line.startsWith("baton-sample: "))
                    .toList();
        }

        /** The distinct versions of one group's artifacts among the runtime dependencies. */
        TreeSet<String> versions(String group, String... skippedArtifactPrefixes) {
            return runtime.entrySet().stream()
                    .filter(e -> e.getKey().startsWith(group + ":"))
                    .filter(e -> {
                        String artifact = e.getKey().substring(group.length() + 1);
                        for (String prefix : skippedArtifactPrefixes) {
                            if (artifact.startsWith(prefix)) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .map(Map.Entry::getValue)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /**
     * The helper every sample's test uses ({@code sample.Locks}: a server's URI from the environment,
     * take a lock, release it, take it again with a higher token), copied into each sample before it
     * builds; to build a sample by hand, copy it to {@code src/test/java/sample/} first.
     */
    static final String COMMON_SOURCE = "common/Locks.java";

    /**
     * Builds {@code samples} (directories under {@code samplesDir}) in one reactor.
     *
     * @return each sample's result, by sample
     */
    static Map<Sample, Result> runAll(
            Path samplesDir,
            List<Sample> samples,
            Path mavenHome,
            Path repository,
            List<Path> tail,
            Map<String, String> environment)
            throws IOException, InterruptedException {
        for (Sample sample : samples) {
            Path sampleDir = samplesDir.resolve(sample.name());
            deleteRecursively(sampleDir.resolve("target")); // no classes left from an earlier build
            // Every sample's test takes its locks with the same few lines, kept once beside the samples.
            Files.copy(
                    samplesDir.resolve(COMMON_SOURCE),
                    sampleDir.resolve("src/test/java/sample/Locks.java"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
        Files.writeString(samplesDir.resolve("pom.xml"), aggregator(samples), StandardCharsets.UTF_8);
        Path logFile = samplesDir.resolve("build.log");
        List<String> command = new ArrayList<>(List.of(
                mavenHome.resolve("bin/mvn").toString(),
                "-B",
                "-ntp",
                "--fail-at-end",
                "-Dstyle.color=never",
                "-Dmaven.repo.local=" + repository,
                "-Dmaven.repo.local.tail=" + tail.stream().map(Path::toString).collect(Collectors.joining(",")),
                // The samples' tests are short-lived JVMs too: the same flags as Maven's own (below),
                // from the command line, so that each sample's POM stays as an application writes it.
                "-DargLine=" + FAST_JVM,
                "verify",
                DEPENDENCY_LIST,
                "-DincludeScope=runtime",
                "-DoutputFile=" + DEPENDENCIES));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(samplesDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile());
        builder.environment().putAll(environment);
        // Maven's own JVM does little work here: start it fast (the tests fork their own JVM).
        builder.environment().putIfAbsent("MAVEN_OPTS", FAST_JVM);
        Process process = builder.start();
        boolean timedOut = false;
        if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
            timedOut = true;
        }
        List<String> log = Files.readAllLines(logFile, StandardCharsets.UTF_8);
        Map<String, String> outcomes = new TreeMap<>();
        Map<String, StringBuilder> sections = new TreeMap<>();
        StringBuilder section = null;
        for (String line : log) {
            Matcher starts = SECTION.matcher(line);
            if (starts.matches()) {
                section = sections.computeIfAbsent(starts.group(1), name -> new StringBuilder());
            }
            Matcher summary = SUMMARY.matcher(line);
            if (summary.matches()) {
                outcomes.put(summary.group(1), summary.group(2));
                section = null;
            }
            if (section != null) {
                section.append(line).append(System.lineSeparator());
            }
        }
        Map<Sample, Result> results = new LinkedHashMap<>();
        for (Sample sample : samples) {
            String artifact = "sample-" + sample.name();
            Path dependencies = samplesDir.resolve(sample.name()).resolve(DEPENDENCIES);
            Map<String, String> runtime =
                    Files.exists(dependencies) ? parse(Files.readAllLines(dependencies)) : Map.of();
            int exitCode = timedOut ? -1 : "SUCCESS".equals(outcomes.get(artifact)) ? 0 : 1;
            String text = sections.containsKey(artifact)
                    ? sections.get(artifact).toString()
                    : "(no section for " + artifact + " in the build's output)" + System.lineSeparator()
                            + String.join(System.lineSeparator(), log);
            results.put(sample, new Result(exitCode, text, runtime, logFile));
        }
        return results;
    }

    /**
     * The read-only repositories the samples' build resolves from besides its own: the outer build's
     * local repository, then the outer build's own tails ({@code maven.repo.local.tail}, comma-separated;
     * an unset property reaches here as blank or as its unresolved {@code ${...}}). Without the outer
     * tails, what the outer build read from one of them (./test reads ~/.m2 as one) would be
     * downloaded again from Maven Central.
     */
    static List<Path> tailRepositories(String localRepository, String outerTails) {
        List<Path> tails = new ArrayList<>(List.of(Path.of(localRepository)));
        for (String entry : outerTails.split(",")) {
            String path = entry.strip();
            if (!path.isEmpty() && !path.contains("${") && Files.isDirectory(Path.of(path))) {
                tails.add(Path.of(path));
            }
        }
        return List.copyOf(tails);
    }

    /** A POM that lists the samples as modules; the samples do not name it as their parent. */
    static String aggregator(List<Sample> samples) {
        StringBuilder modules = new StringBuilder();
        for (Sample sample : samples) {
            modules.append("    <module>").append(sample.name()).append("</module>\n");
        }
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by baton-samples' SampleBuild: the samples in one reactor. -->
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>dev.baton.samples</groupId>
                  <artifactId>samples</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <modules>
                %s  </modules>
                </project>
                """
                .formatted(modules);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /**
     * The dependency plugin's list: {@code group:artifact:type[:classifier]:version:scope}, one a line,
     * possibly followed by {@code -- module ...}.
     */
    static Map<String, String> parse(List<String> lines) {
        Map<String, String> runtime = new TreeMap<>();
        for (String line : lines) {
            String coordinates = line.strip().split("\\s+")[0];
            String[] parts = coordinates.split(":");
            if (parts.length < 5) {
                continue;
            }
            runtime.put(parts[0] + ":" + parts[1], parts[parts.length - 2]);
        }
        return runtime;
    }
}
