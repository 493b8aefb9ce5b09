package dev.baton.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code --name value} options of a bench's {@code main}: each name one of those the bench
 * knows, each followed by its value; an unknown name or a missing value fails at once, naming it.
 */
final class BenchArgs {
    private final Map<String, String> values;

    private BenchArgs(Map<String, String> values) {
        this.values = values;
    }

    /** Reads {@code args} as pairs of one of {@code known} and its value. */
    static BenchArgs parse(String[] args, String... known) {
        Set<String> names = Set.of(known);
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!names.contains(args[i])) {
                throw new IllegalArgumentException(
                        "unknown option " + args[i] + "; known: " + String.join(", ", known));
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            values.put(args[i], args[i + 1]);
        }
        return new BenchArgs(values);
    }

    /** A comma-separated list, or {@code otherwise} if not given. */
    List<String> list(String name, List<String> otherwise) {
        return get(name, value -> Arrays.asList(value.split(",")), otherwise);
    }

    /** A comma-separated list of whole numbers, or {@code otherwise} if not given. */
    List<Integer> counts(String name, List<Integer> otherwise) {
        return get(
                name,
                value -> Arrays.stream(value.split(",")).map(Integer::valueOf).toList(),
                otherwise);
    }

    int count(String name, int otherwise) {
        return get(name, Integer::valueOf, otherwise);
    }

    /** A duration as {@link BenchMain#parse} reads it ({@code 30s}, {@code 500ms}, {@code PT1M}). */
    Duration duration(String name, Duration otherwise) {
        return get(name, BenchMain::parse, otherwise);
    }

    boolean flag(String name, boolean otherwise) {
        return get(name, Boolean::valueOf, otherwise);
    }

    private <T> T get(String name, Function<String, T> read, T otherwise) {
        String value = values.get(name);
        return value == null ? otherwise : read.apply(value);
    }
}
