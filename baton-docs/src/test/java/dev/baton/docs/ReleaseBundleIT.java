package dev.baton.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The release rehearsal's bundle ({@code ./mvnw -Prelease -Dgpg.skip verify}; see the parent POM's
 * release profile) holds every published module with what Maven Central requires: a jar module its
 * jar, sources jar and Javadoc jar, every module its POM, whose own or inherited metadata has the
 * licence, SCM, URL and developers; each file signed unless gpg.skip, and in a release version's zip
 * each file with its checksums. The modules that are not published are not in it.
 */
class ReleaseBundleIT {
    private static final String GROUP_PATH = "dev/baton/";

    @Test
    void theBundleHoldsEveryPublishedModuleWithItsJarsAndAPomWithLicenceAndScm() throws Exception {
        Path root = MarkdownFiles.root();
        String version = System.getProperty("baton.docs.version");
        boolean signed = !Boolean.parseBoolean(System.getProperty("baton.release.gpg.skip", "false"));
        boolean snapshot = version.endsWith("-SNAPSHOT");
        Map<String, byte[]> bundle = snapshot
                ? directory(root.resolve("target/central-deferred"))
                : zip(root.resolve("target/central-publishing/central-bundle.zip"));
        assertThat(bundle).as("the bundle's files").isNotEmpty();

        Document parentPom = xml(Files.readAllBytes(root.resolve("pom.xml")));
        List<String> unpublished = texts(parentPom, "artifact");
        List<String> published = new ArrayList<>(List.of("baton-parent"));
        for (String module : texts(parentPom, "module")) {
            if (!unpublished.contains(module)) {
                published.add(module);
            }
        }
        assertThat(published)
                .contains("baton-core", "baton-bom", "baton-jdbc", "baton-test")
                .doesNotContain("baton-cli");

        List<String> missing = new ArrayList<>();
        for (String artifact : published) {
            String dir = GROUP_PATH + artifact + "/" + version + "/" + artifact + "-" + version;
            String pomPath = dir + ".pom";
            byte[] pom = bundle.get(pomPath);
            if (pom == null) {
                missing.add(pomPath);
                continue;
            }
            List<String> files = new ArrayList<>(List.of(pomPath));
            if (!"pom".equals(child(xml(pom).getDocumentElement(), "packaging"))) {
                files.add(dir + ".jar");
                files.add(dir + "-sources.jar");
                files.add(dir + "-javadoc.jar");
                assertThat(entries(bundle, dir + ".jar")).as(dir + ".jar").anyMatch(e -> e.endsWith(".class"));
                assertThat(entries(bundle, dir + "-sources.jar"))
                        .as(dir + "-sources.jar")
                        .anyMatch(e -> e.endsWith(".java"));
                assertThat(entries(bundle, dir + "-javadoc.jar"))
                        .as(dir + "-javadoc.jar")
                        .contains("index.html");
            }
            for (String file : files) {
                List<String> expected = new ArrayList<>(List.of(file));
                if (signed) {
                    expected.add(file + ".asc");
                }
                if (!snapshot) {
                    expected.add(file + ".md5");
                    expected.add(file + ".sha1");
                }
                expected.stream().filter(f -> !bundle.containsKey(f)).forEach(missing::add);
            }
            assertThat(metadata(bundle, pom, version))
                    .as("%s: the POM's own or inherited metadata", artifact)
                    .containsKeys("licenses", "scm", "url", "developers", "name", "description");
        }
        assertThat(missing).as("files missing from the bundle").isEmpty();
        for (String artifact : unpublished) {
            assertThat(bundle.keySet())
                    .as("a module that is not published")
                    .noneMatch(f -> f.startsWith(GROUP_PATH + artifact + "/"));
        }
    }

    /** The Central metadata a POM has, its own or from its parents in the bundle. */
    private static Map<String, String> metadata(Map<String, byte[]> bundle, byte[] pom, String version)
            throws Exception {
        Map<String, String> found = new TreeMap<>();
        Element project = xml(pom).getDocumentElement();
        for (String own : List.of("name", "description")) {
            if (child(project, own) != null) {
                found.put(own, child(project, own));
            }
        }
        while (project != null) {
            for (String inherited : List.of("url", "licenses", "scm", "developers")) {
                Element element = element(project, inherited);
                if (element != null && !element.getTextContent().isBlank()) {
                    found.putIfAbsent(inherited, element.getTextContent().strip());
                }
            }
            Element parent = element(project, "parent");
            if (parent == null) {
                break;
            }
            String parentPath = GROUP_PATH + child(parent, "artifactId") + "/" + version + "/"
                    + child(parent, "artifactId") + "-" + version + ".pom";
            byte[] parentPom = bundle.get(parentPath);
            assertThat(parentPom).as("the parent POM " + parentPath).isNotNull();
            project = xml(parentPom).getDocumentElement();
        }
        return found;
    }

    private static List<String> entries(Map<String, byte[]> bundle, String jar) throws IOException {
        byte[] bytes = bundle.get(jar);
        if (bytes == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(bytes))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                names.add(e.getName());
            }
        }
        return names;
    }

    private static Map<String, byte[]> zip(Path zip) throws IOException {
        assertThat(zip)
                .as("the release bundle (./mvnw -Prelease verify makes it)")
                .isRegularFile();
        Map<String, byte[]> files = new TreeMap<>();
        try (InputStream raw = Files.newInputStream(zip);
                ZipInputStream in = new ZipInputStream(raw)) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (!e.isDirectory()) {
                    files.put(e.getName(), in.readAllBytes());
                }
            }
        }
        return files;
    }

    private static Map<String, byte[]> directory(Path dir) throws IOException {
        assertThat(dir)
                .as("the staged snapshot (./mvnw -Prelease verify makes it)")
                .isDirectory();
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.filter(Files::isRegularFile).forEach(f -> {
                try {
                    files.put(dir.relativize(f).toString(), Files.readAllBytes(f));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        return files;
    }

    private static Document xml(byte[] bytes) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(bytes));
    }

    private static List<String> texts(Document doc, String tag) {
        List<String> texts = new ArrayList<>();
        NodeList nodes = doc.getElementsByTagName(tag);
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent().strip());
        }
        return texts;
    }

    /** The direct child element called {@code name}, or null. */
    private static Element element(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String child(Element parent, String name) {
        Element e = element(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }
}
