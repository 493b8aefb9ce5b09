package dev.baton.cli;

import dev.baton.bench.BenchMain;
import java.time.Duration;
import picocli.CommandLine;

/** Durations such as {@code 500ms}, {@code 30s}, {@code 2m} or ISO-8601 {@code PT30S}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        Duration parsed;
        try {
            parsed = BenchMain.parse(value);
        } catch (RuntimeException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a duration; write it like 500ms, 30s, 2m or PT30S");
        }
        if (parsed.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative; give a duration of 0 or more");
        }
        return parsed;
    }
}
