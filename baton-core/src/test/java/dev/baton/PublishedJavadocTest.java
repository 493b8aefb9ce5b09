package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No Javadoc comment of the published packages is left without its declaration: a comment followed
 * by another Javadoc comment belongs to nothing, and the method it was written for shows an inherited
 * or no text instead (Lease.close() would show AutoCloseable's "Closes this resource").
 */
class PublishedJavadocTest {
    @Test
    void everyJavadocCommentOfThePublishedPackagesBelongsToADeclaration() throws IOException {
        List<String> dangling = new ArrayList<>();
        for (String pkg : List.of("dev/baton", "dev/baton/spi")) {
            try (Stream<Path> sources = Files.list(Path.of("src/main/java", pkg))) {
                for (Path source :
                        sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String text = Files.readString(source, StandardCharsets.UTF_8);
                    for (int start = text.indexOf("/**"); start >= 0; start = text.indexOf("/**", start + 3)) {
                        int end = text.indexOf("*/", start + 3);
                        if (text.substring(end + 2).stripLeading().startsWith("/**")) {
                            int line = (int) text.substring(0, start).lines().count() + 1;
                            dangling.add(source.getFileName() + ":" + line);
                        }
                    }
                }
            }
        }
        assertThat(dangling)
                .as("Javadoc comments followed by another one instead of a declaration")
                .isEmpty();
    }
}
