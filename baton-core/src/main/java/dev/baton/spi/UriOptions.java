package dev.baton.spi;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The one rule for the option names of a backend's URI, so that every backend refuses an unknown or
 * misspelt option in the same words: the option, the closest name it takes ("did you mean"), and
 * every name it takes. Names are compared ignoring case.
 *
 * <p>The options every URI takes ({@link #COMMON}: {@code clientName} and {@code fair}) are read by
 * the core and taken out before the backend sees the URI; they count as known here for every
 * backend. A name that is (or is close to) one of {@link dev.baton.LockOptions}' durations or flags
 * ({@code leaseTime}, ...) is told where that option is set instead, since those are not URI
 * options.
 *
 * <p>A stable part of the SPI for backend authors: a backend of another project refuses its unknown
 * options in the same words by calling {@link #unknown} from its {@link LockBackendProvider#create}.
 */
public final class UriOptions {
    /** The options every backend URI takes, read by the core into {@link dev.baton.LockOptions}. */
    public static final List<String> COMMON = List.of("clientName", "fair");

    /** {@link dev.baton.LockOptions} that users look for in a URI; set in code or configuration instead. */
    private static final List<String> LOCK_OPTIONS =
            List.of("leaseTime", "autoRenew", "operationTimeout", "pollInitialDelay", "pollMaxDelay");

    private UriOptions() {}

    /**
     * The name of {@code known} or {@link #COMMON} that {@code name} is, or most likely meant: equal
     * ignoring case, else the nearest within a few edits (one for names of up to 4 letters, two up to 8,
     * three beyond), counting a swap of two neighbouring letters as one edit.
     *
     * @param name a name found in a URI
     * @param known the backend's own option names
     * @return the known name as spelt in {@code known}, or empty when none is that close
     */
    public static Optional<String> closest(String name, Collection<String> known) {
        return nearest(name, withCommon(known));
    }

    /**
     * Whether {@code name} looks like one of {@link dev.baton.LockOptions}' options ({@code
     * leaseTime}, {@code autoRenew}, {@code operationTimeout}, {@code pollInitialDelay}, {@code
     * pollMaxDelay}), which a URI does not take.
     *
     * @param name a name found in a URI
     * @return the option's name, or empty
     */
    public static Optional<String> lockOption(String name) {
        return nearest(name, LOCK_OPTIONS);
    }

    /**
     * Why {@code name} is refused, for the backend's message about its URI: a {@link
     * dev.baton.LockOptions} option is pointed to where it is set; otherwise the nearest known name
     * is offered, and every name the URI takes is listed.
     *
     * @param name the unknown name as found in the URI
     * @param known the backend's own option names (the {@link #COMMON} ones are added)
     * @return text such as {@code unknown option 'stratgy' (did you mean 'strategy'?); the options are
     *     advisoryHolders, clientName, ...}
     */
    public static String unknown(String name, Collection<String> known) {
        Optional<String> lockOption = lockOption(name);
        if (lockOption.isPresent()) {
            String option = lockOption.get();
            return "'" + name + "' is not a URI option"
                    + (option.equals(name) ? "" : " (did you mean '" + option + "'?)")
                    + ": " + option + " is one of the client's LockOptions; set it with LockOptions.builder()."
                    + option + "(...) (baton." + kebab(option) + " in Spring Boot)";
        }
        List<String> all = withCommon(known);
        String offer =
                nearest(name, all).map(n -> " (did you mean '" + n + "'?)").orElse("");
        return "unknown option '" + name + "'" + offer + "; the options are " + String.join(", ", sorted(all));
    }

    /**
     * Every name the URI takes, the backend's and {@link #COMMON}, sorted ignoring case: for a
     * backend's own messages.
     *
     * @param known the backend's own option names
     * @return the names, comma-separated
     */
    public static String list(Collection<String> known) {
        return String.join(", ", sorted(withCommon(known)));
    }

    /**
     * The URI with one more option, in the URI's own syntax: {@code ;name=value} on an H2 JDBC URL,
     * {@code ?name=value} or {@code &name=value} elsewhere (the value URL-encoded), before any {@code
     * #fragment} (a Sentinel master's name).
     *
     * @param uri a backend URI
     * @param name the option's name
     * @param value the option's value, as text
     * @return the URI with the option added; {@code uri} is not checked
     */
    public static String with(String uri, String name, String value) {
        if (uri.regionMatches(true, 0, "jdbc:h2:", 0, "jdbc:h2:".length())) {
            return uri + ";" + name + "=" + value;
        }
        int hash = uri.indexOf('#');
        String base = hash < 0 ? uri : uri.substring(0, hash);
        String fragment = hash < 0 ? "" : uri.substring(hash);
        return base + (base.contains("?") ? "&" : "?") + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)
                + fragment;
    }

    /**
     * Whether the URI names the option {@code name} (compared ignoring case) among its parameters,
     * after {@code ?}, {@code &} or {@code ;} and before any {@code #fragment}.
     *
     * @param uri a backend URI
     * @param name the option's name
     * @return {@code true} if a parameter of that name is in it
     */
    public static boolean has(String uri, String name) {
        int hash = uri.indexOf('#');
        for (String part : (hash < 0 ? uri : uri.substring(0, hash)).split("[?&;]")) {
            int eq = part.indexOf('=');
            if (eq > 0 && part.substring(0, eq).strip().equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> withCommon(Collection<String> known) {
        List<String> all = new ArrayList<>(known);
        for (String common : COMMON) {
            if (all.stream().noneMatch(common::equalsIgnoreCase)) {
                all.add(common);
            }
        }
        return all;
    }

    private static List<String> sorted(List<String> names) {
        TreeSet<String> sorted = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        sorted.addAll(names);
        return List.copyOf(sorted);
    }

    private static Optional<String> nearest(String name, Collection<String> candidates) {
        if (name == null || name.isEmpty()) {
            return Optional.empty();
        }
        String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = distance(lower, candidate.toLowerCase(Locale.ROOT));
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        int length = Math.max(name.length(), best == null ? 0 : best.length());
        int allowed = length <= 4 ? 1 : length <= 8 ? 2 : 3;
        return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** Edits (insert, delete, replace, swap of neighbours) that turn {@code a} into {@code b}. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
