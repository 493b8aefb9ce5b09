package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snippet check itself: it finds a block that drifted from its source, and fixes it on request. */
class SnippetsTest {
    @TempDir
    Path root;

    private Path source() throws IOException {
        Path source = root.resolve("src/Example.java");
        Files.createDirectories(source.getParent());
        Files.writeString(
                source,
                """
                class Example {
                    void run() {
                        // snippet:start whole
                        int a = 1;
                        // snippet:start inner
                        int b = a + 1;
                        // snippet:end inner
                        // snippet:end whole
                    }
                }
                """);
        return source;
    }

    private Path page(String block) throws IOException {
        Path page = root.resolve("docs/page.md");
        Files.createDirectories(page.getParent());
        Files.writeString(page, "# Page\n\n" + block + "\nafter\n");
        return page;
    }

    @Test
    void aBlockEqualToItsRegionPasses() throws IOException {
        source();
        Path page = page("<!-- snippet: src/Example.java#whole -->\n```java\nint a = 1;\nint b = a + 1;\n```\n");
        assertThat(Snippets.problems(root, List.of(page))).isEmpty();
    }

    @Test
    void aBlockThatDriftedFromItsRegionIsReportedWithItsLine() throws IOException {
        source();
        Path page = page("<!-- snippet: src/Example.java#inner -->\n```java\nint b = a + 2;\n```\n");
        assertThat(Snippets.problems(root, List.of(page)))
                .singleElement()
                .asString()
                .startsWith("docs/page.md:4: the block differs from src/Example.java#inner")
                .contains("block has [int b = a + 2;], source has [int b = a + 1;]");
    }

    @Test
    void aJavaBlockWithoutASourceAndAMissingRegionAreReported() throws IOException {
        source();
        Path page = page("```java\nint c;\n```\n\n<!-- snippet: src/Example.java#gone -->\n```java\nint d;\n```\n");
        assertThat(Snippets.problems(root, List.of(page)))
                .hasSize(2)
                .anySatisfy(p -> assertThat(p).contains("a java block without its source"))
                .anySatisfy(p -> assertThat(p).contains("no region 'gone'"));
    }

    @Test
    void updateCopiesTheRegionIntoTheBlockKeepingAListItemsIndentation() throws IOException {
        source();
        Path page = page("- item\n\n  <!-- snippet: src/Example.java#whole -->\n  ```java\n  old\n  ```\n");
        assertThat(Snippets.update(root, List.of(page))).containsExactly(page);
        assertThat(Files.readString(page)).contains("  ```java\n  int a = 1;\n  int b = a + 1;\n  ```\n\nafter");
        assertThat(Snippets.problems(root, List.of(page))).isEmpty();
    }
}
