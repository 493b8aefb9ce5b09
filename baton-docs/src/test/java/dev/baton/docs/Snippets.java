package dev.baton.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code blocks of Markdown files and the source regions they show. A block preceded by a line
 * {@code <!-- snippet: path/from/the/root/File.java#name -->} must equal, line for line, the region
 * {@code name} of that file: the lines between {@code snippet:start name} and {@code snippet:end name}
 * (in any comment syntax), without the lines of other regions' markers and with their common
 * indentation removed. Every {@code java} block must have such a line, so that each one is a region
 * of a source the build compiles.
 */
final class Snippets {
    static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*snippet:\\s*([^#\\s]+)#([\\w.-]+)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^( {0,3}|\\s*)(`{3,}|~{3,})\\s*([\\w+-]*).*$");
    private static final Pattern REGION = Pattern.compile("snippet:(start|end)\\s+([\\w.-]+)");

    /** A fenced code block: its language, the snippet reference before it (or null), its lines. */
    record Block(Path file, int fenceLine, String language, String reference, int indent, List<String> body) {
        String where(Path root) {
            return root.relativize(file) + ":" + fenceLine;
        }
    }

    private Snippets() {}

    static List<Block> blocks(Path file) {
        List<String> lines = MarkdownFiles.lines(file);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int indent = open.group(1).length();
            String fence = open.group(2);
            Matcher marker = i > 0 ? MARKER.matcher(lines.get(i - 1)) : null;
            String reference = marker != null && marker.matches() ? marker.group(1) + "#" + marker.group(2) : null;
            List<String> body = new ArrayList<>();
            int j = i + 1;
            while (j < lines.size() && !closes(lines.get(j), fence)) {
                body.add(stripIndent(lines.get(j), indent));
                j++;
            }
            blocks.add(new Block(file, i + 1, open.group(3), reference, indent, body));
            i = j;
        }
        return blocks;
    }

    private static boolean closes(String line, String fence) {
        String trimmed = line.strip();
        return trimmed.startsWith(fence) && trimmed.chars().allMatch(c -> c == fence.charAt(0));
    }

    private static String stripIndent(String line, int indent) {
        int n = 0;
        while (n < indent && n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return line.substring(n);
    }

    /**
     * The lines of region {@code name} in {@code file}, as a Markdown block shows them.
     *
     * @throws IllegalArgumentException naming what is missing
     */
    static List<String> region(Path root, String reference) {
        int hash = reference.indexOf('#');
        Path file = root.resolve(reference.substring(0, hash));
        String name = reference.substring(hash + 1);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no file " + reference.substring(0, hash));
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> region = null;
        for (String line : lines) {
            Matcher m = REGION.matcher(line);
            if (m.find()) {
                if (m.group(2).equals(name)) {
                    if (m.group(1).equals("start")) {
                        if (region != null) {
                            throw new IllegalArgumentException("region '" + name + "' starts twice in " + file);
                        }
                        region = new ArrayList<>();
                    } else if (region == null) {
                        throw new IllegalArgumentException("region '" + name + "' ends before it starts in " + file);
                    } else {
                        return dedent(region);
                    }
                }
                continue; // another region's marker
            }
            if (region != null) {
                region.add(line);
            }
        }
        throw new IllegalArgumentException(
                region == null
                        ? "no region '" + name + "' (snippet:start " + name + ") in " + reference.substring(0, hash)
                        : "region '" + name + "' never ends (snippet:end " + name + ") in " + file);
    }

    static List<String> dedent(List<String> lines) {
        int indent = Integer.MAX_VALUE;
        for (String line : lines) {
            if (!line.isBlank()) {
                indent = Math.min(indent, line.length() - line.stripLeading().length());
            }
        }
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            out.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
        }
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
            out.remove(out.size() - 1);
        }
        while (!out.isEmpty() && out.get(0).isEmpty()) {
            out.remove(0);
        }
        return out;
    }

    /** Every problem of the blocks of {@code files}: one line each, starting with file:line. */
    static List<String> problems(Path root, List<Path> files) {
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            for (Block block : blocks(file)) {
                if (block.reference() == null) {
                    if (block.language().equals("java")) {
                        problems.add(block.where(root)
                                + ": a java block without its source; put <!-- snippet: path/File.java#name --> on"
                                + " the line before it, naming a region of a compiled source (see CONTRIBUTING.md)");
                    }
                    continue;
                }
                List<String> region;
                try {
                    region = region(root, block.reference());
                } catch (IllegalArgumentException e) {
                    problems.add(block.where(root) + ": " + block.reference() + ": " + e.getMessage());
                    continue;
                }
                List<String> body =
                        block.body().stream().map(String::stripTrailing).toList();
                if (!body.equals(region)) {
                    problems.add(block.where(root) + ": the block differs from " + block.reference() + " "
                            + firstDifference(body, region)
                            + "; copy the region into the Markdown with"
                            + " ./mvnw -pl baton-docs test -Dtest=DocSnippetsTest -Dbaton.docs.update=true");
                }
            }
        }
        return problems;
    }

    private static String firstDifference(List<String> block, List<String> region) {
        for (int i = 0; i < Math.max(block.size(), region.size()); i++) {
            String b = i < block.size() ? block.get(i) : "<end of block>";
            String r = i < region.size() ? region.get(i) : "<end of region>";
            if (!b.equals(r)) {
                return "at its line " + (i + 1) + ": block has [" + b + "], source has [" + r + "]";
            }
        }
        return "";
    }

    /** Rewrites every referenced block of {@code files} with its region; returns the files changed. */
    static List<Path> update(Path root, List<Path> files) {
        List<Path> changed = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = new ArrayList<>(MarkdownFiles.lines(file));
            List<Block> blocks = blocks(file);
            boolean dirty = false;
            for (int b = blocks.size() - 1; b >= 0; b--) {
                Block block = blocks.get(b);
                if (block.reference() == null) {
                    continue;
                }
                String pad = " ".repeat(block.indent());
                List<String> region = region(root, block.reference()).stream()
                        .map(line -> line.isEmpty() ? "" : pad + line)
                        .toList();
                int from = block.fenceLine(); // index of the first body line
                int to = from + block.body().size();
                if (!lines.subList(from, to).equals(region)) {
                    lines.subList(from, to).clear();
                    lines.addAll(from, region);
                    dirty = true;
                }
            }
            if (dirty) {
                try {
                    Files.write(file, lines);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                changed.add(file);
            }
        }
        return changed;
    }
}
