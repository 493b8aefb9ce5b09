package dev.baton.docs;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The relative links of Markdown files and whether they resolve: the file or directory a link names
 * must exist, and a {@code #anchor} must be a heading of the target page (as GitHub names headings:
 * lower case, punctuation dropped, spaces to hyphens, {@code -1}, {@code -2} for repeats) or an
 * {@code <a id>} / {@code <a name>} on it. Links with a scheme (https:, mailto:) are not followed.
 */
final class MarkdownLinks {
    private static final Pattern INLINE =
            Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(\\s+.*)?$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,}).*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");

    private MarkdownLinks() {}

    /** Every dead relative link or anchor of {@code files}: one line each, starting with file:line. */
    static List<String> problems(Path root, List<Path> files, Set<String> pendingPages) {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = MarkdownFiles.lines(file);
            boolean inFence = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (FENCE.matcher(line).matches()) {
                    inFence = !inFence;
                    continue;
                }
                if (inFence) {
                    continue;
                }
                for (String target : targets(line)) {
                    String problem = check(root, file, target, anchors, pendingPages);
                    if (problem != null) {
                        problems.add(root.relativize(file) + ":" + (i + 1) + ": " + problem);
                    }
                }
            }
        }
        return problems;
    }

    static List<String> targets(String line) {
        String text = CODE_SPAN.matcher(line).replaceAll("");
        List<String> targets = new ArrayList<>();
        Matcher inline = INLINE.matcher(text);
        while (inline.find()) {
            targets.add(inline.group(1));
        }
        Matcher reference = REFERENCE.matcher(text);
        if (reference.matches()) {
            targets.add(reference.group(1));
        }
        return targets;
    }

    private static String check(
            Path root, Path file, String target, Map<Path, Set<String>> anchors, Set<String> pendingPages) {
        if (SCHEME.matcher(target).matches()) {
            return null;
        }
        int hash = target.indexOf('#');
        String path = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!resolved.startsWith(root)) {
            return "link [" + target + "] leaves the repository";
        }
        String relative = root.relativize(resolved).toString();
        if (pendingPages.contains(relative)) {
            if (Files.exists(resolved)) {
                return "link [" + target + "]: " + relative + " exists now; remove it from the pending pages in"
                        + " DocLinksTest so that its anchors are checked too";
            }
            return anchor == null ? null : "link [" + target + "]: no anchors into a page not written yet";
        }
        if (!Files.exists(resolved)) {
            return "dead link [" + target + "]: no file " + relative;
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!resolved.getFileName().toString().endsWith(".md")) {
            return "link [" + target + "]: an anchor into a file that is not Markdown";
        }
        Set<String> known = anchors.computeIfAbsent(resolved, MarkdownLinks::anchors);
        if (!known.contains(anchor)) {
            return "dead anchor [" + target + "]: " + relative + " has no heading or <a id> '" + anchor + "'";
        }
        return null;
    }

    /** The anchors of a Markdown file, as GitHub renders it. */
    static Set<String> anchors(Path file) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        for (String line : MarkdownFiles.lines(file)) {
            if (FENCE.matcher(line).matches()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
        }
        return anchors;
    }

    /** GitHub's anchor for a heading's Markdown text. */
    static String slug(String heading) {
        String text = heading.replaceAll("<[^>]+>", "") // inline HTML
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // links and images: their text
                .replace("`", "")
                .replace("*", "");
        StringBuilder slug = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') {
                slug.append('-');
            } else if (c == '-' || c == '_' || Character.isLetterOrDigit(c)) {
                slug.appendCodePoint(c);
            }
        });
        return slug.toString();
    }
}
