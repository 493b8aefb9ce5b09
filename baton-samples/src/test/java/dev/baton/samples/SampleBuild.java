package dev.baton.samples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One sample's own Maven build ({@code mvn verify}, which compiles it, checks dependency convergence and
 * runs its lock test), then the list of its runtime dependencies, read back here.
 *
 * <p>The build resolves Baton from the private repository the invoker plugin filled from this reactor,
 * everything else from the build's own local repository as a read-only tail (Maven 3.9), and reaches the
 * servers through the environment.
 */
final class SampleBuild {

    /** Limit for one sample's build: far above the ~20 s one takes, to end a hung build. */
    private static final long TIMEOUT_MINUTES = 5;

    /** The dependency plugin the reactor already uses, named in full so that no newer one is looked up. */
    private static final String DEPENDENCY_LIST = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list";

    private SampleBuild() {}

    /**
     * The outcome of a build.
     *
     * @param exitCode Maven's exit code (or -1 after the timeout)
     * @param log everything the build printed
     * @param runtime the runtime dependencies as {@code group:artifact -> version}
     * @param logFile where {@link #log} was written
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

    static Result run(Path sampleDir, Path mavenHome, Path repository, Path tail, Map<String, String> environment)
            throws IOException, InterruptedException {
        deleteRecursively(sampleDir.resolve("target")); // no classes left from an earlier build
        // Every sample's test takes its locks with the same few lines, kept once beside the samples.
        Files.copy(
                sampleDir.resolveSibling(COMMON_SOURCE),
                sampleDir.resolve("src/test/java/sample/Locks.java"),
                StandardCopyOption.REPLACE_EXISTING);
        Path logFile = sampleDir.resolve("build.log");
        Path dependencies = sampleDir.resolve("target/runtime-dependencies.txt");
        List<String> command = new ArrayList<>(List.of(
                mavenHome.resolve("bin/mvn").toString(),
                "-B",
                "-ntp",
                "-Dstyle.color=never",
                "-Dmaven.repo.local=" + repository,
                "-Dmaven.repo.local.tail=" + tail,
                "verify",
                DEPENDENCY_LIST,
                "-DincludeScope=runtime",
                "-DoutputFile=" + dependencies));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(sampleDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile());
        builder.environment().putAll(environment);
        // Maven's own JVM does little work here: start it fast (the tests fork their own JVM).
        builder.environment().putIfAbsent("MAVEN_OPTS", "-XX:TieredStopAtLevel=1");
        Process process = builder.start();
        int exitCode;
        if (process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            exitCode = process.exitValue();
        } else {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
            exitCode = -1;
        }
        String log = Files.readString(logFile, StandardCharsets.UTF_8);
        Map<String, String> runtime = Files.exists(dependencies) ? parse(Files.readAllLines(dependencies)) : Map.of();
        return new Result(exitCode, log, runtime, logFile);
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
