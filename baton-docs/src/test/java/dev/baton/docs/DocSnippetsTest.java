package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of README.md and docs/ is a region of a source the build compiles, word for word,
 * and every Baton version a page names is this build's. With {@code -Dbaton.docs.update=true} the
 * test first copies each region into its block (the way to edit a snippet: change the source, then
 * run it so).
 */
class DocSnippetsTest {
    private static final Pattern BATON_VERSION = Pattern.compile(
            "<groupId>dev\\.baton</groupId>\\s*<artifactId>[\\w-]+</artifactId>\\s*<version>([^<]+)</version>"
                    + "|dev\\.baton:baton-[\\w-]+:([\\w.-]+)");
    private static final Pattern DRIVER_VERSION =
            Pattern.compile("<artifactId>(h2|postgresql)</artifactId>\\s*<version>([^<]+)</version>");

    @Test
    void everyJavaBlockIsItsCompiledSourceRegion() {
        Path root = MarkdownFiles.root();
        List<Path> files = MarkdownFiles.under(root);
        if (Boolean.getBoolean("baton.docs.update")) {
            Snippets.update(root, files);
        }
        assertThat(Snippets.problems(root, files))
                .as("code blocks and their sources")
                .isEmpty();
        long javaBlocks = files.stream()
                .flatMap(f -> Snippets.blocks(f).stream())
                .filter(b -> b.language().equals("java"))
                .count();
        assertThat(javaBlocks).as("Java blocks found").isGreaterThan(20);
    }

    @Test
    void everyBatonVersionOnAPageIsThisBuilds() {
        String version = System.getProperty("baton.docs.version");
        assertThat(version).as("baton.docs.version (set by the POM)").isNotBlank();
        Path root = MarkdownFiles.root();
        List<String> wrong = new ArrayList<>();
        for (Path file : MarkdownFiles.under(root)) {
            String text = String.join("\n", MarkdownFiles.lines(file));
            Matcher m = BATON_VERSION.matcher(text);
            while (m.find()) {
                String found = m.group(1) != null ? m.group(1) : m.group(2);
                if (!found.equals(version) && !found.startsWith("@")) {
                    wrong.add(root.relativize(file) + ": " + m.group() + " (this build is " + version + ")");
                }
            }
        }
        assertThat(wrong).as("Baton versions on the pages").isEmpty();
    }

    @Test
    void everyDriverVersionOnAPageIsTheOneBatonIsTestedWith() {
        Path root = MarkdownFiles.root();
        List<String> wrong = new ArrayList<>();
        for (Path file : MarkdownFiles.under(root)) {
            Matcher m = DRIVER_VERSION.matcher(String.join("\n", MarkdownFiles.lines(file)));
            while (m.find()) {
                String expected = System.getProperty("baton.docs." + m.group(1) + ".version");
                if (!m.group(2).equals(expected)) {
                    wrong.add(root.relativize(file) + ": " + m.group(1) + " " + m.group(2) + " (tested with " + expected
                            + ")");
                }
            }
        }
        assertThat(wrong).as("driver versions on the pages").isEmpty();
    }
}
