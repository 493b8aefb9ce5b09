package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every relative link and #anchor of every Markdown file of the checkout resolves. */
class DocLinksTest {
    /**
     * Pages that other work in progress writes, already linked from here. A link to one is accepted
     * while the page is missing; once it exists, its entry must go (the test says so), so that links
     * into it are checked like any other.
     */
    static final Set<String> PENDING_PAGES = Set.of();

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        Path root = MarkdownFiles.root();
        List<Path> files = MarkdownFiles.under(root);
        assertThat(files).as("Markdown files under %s", root).contains(root.resolve("README.md"));
        assertThat(MarkdownLinks.problems(root, files, PENDING_PAGES))
                .as("dead links and anchors")
                .isEmpty();
    }
}
