package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The link check itself: GitHub's anchors, and a dead file or anchor reported with its line. */
class MarkdownLinksTest {
    @TempDir
    Path root;

    private Path write(String name, String text) throws IOException {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    @Test
    void headingsGetGitHubsAnchors() {
        assertThat(MarkdownLinks.slug("Who holds what: `baton locks`, `baton status`, `baton release --force`"))
                .isEqualTo("who-holds-what-baton-locks-baton-status-baton-release---force");
        assertThat(MarkdownLinks.slug("Fairness and `fair=false`")).isEqualTo("fairness-and-fairfalse");
        assertThat(MarkdownLinks.slug("Spring Boot: [the starter](x.md) (Boot 4)"))
                .isEqualTo("spring-boot-the-starter-boot-4");
    }

    @Test
    void goodLinksPassAndDeadOnesAreReportedWithTheirLine() throws IOException {
        write("docs/target.md", "# Title\n\n## Same\n\n## Same\n\n<a id=\"custom\"></a>\n```\n# not a heading\n```\n");
        Path page = write(
                "docs/page.md",
                String.join(
                        "\n",
                        "[ok](target.md) [ok](target.md#same-1) [ok](target.md#custom) [ok](../docs/)",
                        "[external](https://example.org/nowhere.md) `[in code](gone.md)`",
                        "[dead](gone.md)",
                        "[dead anchor](target.md#not-a-heading)",
                        "[self](#nothing-here)",
                        "[ref]: missing/file.md",
                        "```",
                        "[in a block](gone.md)",
                        "```"));
        assertThat(MarkdownLinks.problems(root, List.of(page), Set.of()))
                .containsExactly(
                        "docs/page.md:3: dead link [gone.md]: no file docs/gone.md",
                        "docs/page.md:4: dead anchor [target.md#not-a-heading]: docs/target.md has no heading or"
                                + " <a id> 'not-a-heading'",
                        "docs/page.md:5: dead anchor [#nothing-here]: docs/page.md has no heading or <a id>"
                                + " 'nothing-here'",
                        "docs/page.md:6: dead link [missing/file.md]: no file docs/missing/file.md");
    }

    @Test
    void aPendingPageIsAcceptedUntilItExists() throws IOException {
        Path page = write("README.md", "[soon](docs/soon.md)\n");
        assertThat(MarkdownLinks.problems(root, List.of(page), Set.of("docs/soon.md")))
                .isEmpty();
        write("docs/soon.md", "# Soon\n");
        assertThat(MarkdownLinks.problems(root, List.of(page), Set.of("docs/soon.md")))
                .singleElement()
                .asString()
                .contains("docs/soon.md exists now; remove it from the pending pages");
    }
}
