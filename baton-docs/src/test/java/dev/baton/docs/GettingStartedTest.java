package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.PostgresServer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/getting-started.md's program, run as the page tells: on H2 in the JVM, in two JVMs on one H2
 * file with AUTO_SERVER, and on PostgreSQL (an embedded server) with only the URI changed.
 */
@Timeout(120)
class GettingStartedTest {
    /** The jars of the getting-started application: its dependencies and theirs. */
    private static final List<String> APPLICATION_JARS =
            List.of("baton-core-", "baton-jdbc-", "h2-", "HikariCP-", "slf4j-api-");

    private static final Pattern HOLDING = Pattern.compile("holding nightly-report, fencing token (\\d+)");

    @Test
    void theFirstLockRunsOnH2WithNoServer() throws Exception {
        assertThat(tokens(runHere())).singleElement().satisfies(token -> assertThat(token)
                .isPositive());
    }

    @Test
    void theSameProgramRunsOnPostgresWithOnlyTheUriChanged() throws Exception {
        try (PostgresServer postgres = PostgresServer.start()) {
            String uri = postgres.jdbcUrl() + "?user=" + postgres.user() + "&password=" + postgres.password();
            assertThat(tokens(runHere(uri))).singleElement().satisfies(token -> assertThat(token)
                    .isPositive());
        }
    }

    @Test
    void twoJvmsTakeTurnsOnOneH2FileWithAutoServer(@TempDir Path dir) throws Exception {
        String uri = "jdbc:h2:" + dir.resolve("locks") + ";AUTO_SERVER=TRUE";
        Process first = fork(uri);
        // The second starts once the first holds the lock, so it reaches the file through the first
        // one's server and waits for the lock: started at the same instant, a JVM that cannot open the
        // file within the operation timeout (H2 still being opened by the other, on a loaded machine)
        // fails instead.
        StringBuilder firstOutput = new StringBuilder();
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null && !HOLDING.matcher(line).find()) {
                firstOutput.append(line).append('\n');
            }
            assertThat(line)
                    .as("the first JVM's grant; its output:%n%s", firstOutput)
                    .isNotNull();
            firstOutput.append(line).append('\n');
            Process second = fork(uri);
            String secondOutput = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            lines.lines().forEach(rest -> firstOutput.append(rest).append('\n'));
            assertThat(first.waitFor())
                    .as("first JVM's exit code; its output:%n%s", firstOutput)
                    .isZero();
            assertThat(second.waitFor())
                    .as("second JVM's exit code; its output:%n%s", secondOutput)
                    .isZero();
            List<Long> firstTokens = tokens(firstOutput.toString());
            List<Long> secondTokens = tokens(secondOutput);
            assertThat(secondTokens)
                    .as("the second JVM's grant, after the first released")
                    .singleElement()
                    .satisfies(token -> assertThat(token).isGreaterThan(firstTokens.get(0)));
        }
    }

    private static String runHere(String... args) throws InterruptedException {
        PrintStream console = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            FirstLock.main(args);
        } finally {
            System.setOut(console);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * The program in a JVM of its own, on the class path of the page's application (baton-jdbc, H2
     * and what they bring), not this module's, which holds every backend and peer.
     */
    private static Process fork(String uri) throws IOException {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.endsWith("test-classes")
                        || APPLICATION_JARS.stream()
                                .anyMatch(jar ->
                                        Path.of(entry).getFileName().toString().startsWith(jar)))
                .collect(Collectors.joining(File.pathSeparator));
        return new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-cp",
                        classPath,
                        FirstLock.class.getName(),
                        uri)
                .redirectErrorStream(true)
                .start();
    }

    private static List<Long> tokens(String output) {
        List<Long> tokens = new ArrayList<>();
        Matcher m = HOLDING.matcher(output);
        while (m.find()) {
            tokens.add(Long.parseLong(m.group(1)));
        }
        assertThat(tokens).as("the program's output: %s", output).isNotEmpty();
        return tokens;
    }
}
