package dev.baton;

import dev.baton.spi.UriOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The options every backend URI takes ({@link UriOptions#COMMON}), read by the core into the client's
 * {@link LockOptions} and taken out of the URI before the backend parses the rest, so that no backend
 * (nor a JDBC driver) sees a parameter it does not know:
 *
 * <ul>
 *   <li>{@code clientName} ({@code redis://host:6379?clientName=billing}, {@code
 *       jdbc:h2:./locks;clientName=billing}) sets {@link LockOptions#clientName()};
 *   <li>{@code fair=false} turns {@link LockOptions#fair()} off ({@code fair=true} leaves the options'
 *       value), so that {@link LockClient#options()} says what the client does.
 * </ul>
 *
 * <p>Names are compared ignoring case; a parameter starts after {@code ?}, {@code &} or {@code ;} and
 * its value ends at the next of {@code &}, {@code ;} or {@code #}.
 */
final class CommonUriOptions {
    private static final Pattern PARAMETER =
            Pattern.compile("([?&;])(clientName|fair)=([^&;#]*)", Pattern.CASE_INSENSITIVE);

    private CommonUriOptions() {}

    /**
     * The options with the URI's common options applied.
     *
     * @param uri the URI as the caller gave it
     * @param options the caller's options
     * @return {@code options}, or a copy with the URI's client name and fairness
     * @throws LockConfigurationException if a value is invalid, naming the option and what it takes
     */
    static LockOptions apply(String uri, LockOptions options) {
        if (uri == null || options == null) {
            return options;
        }
        Matcher matcher = PARAMETER.matcher(uri);
        LockOptions.Builder builder = null;
        while (matcher.find()) {
            String name = matcher.group(2);
            String value = URLDecoder.decode(matcher.group(3), StandardCharsets.UTF_8);
            if (builder == null) {
                builder = options.toBuilder();
            }
            if (name.equalsIgnoreCase("clientName")) {
                builder.clientName(value);
            } else if (fair(uri, value) == Boolean.FALSE) {
                builder.fair(false);
            }
        }
        if (builder == null) {
            return options;
        }
        LockOptions applied = builder.build();
        return applied.equals(options) ? options : applied;
    }

    private static Boolean fair(String uri, String value) {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("true") || text.equals("false")) {
            return Boolean.valueOf(text);
        }
        throw new LockConfigurationException("Baton URI " + Baton.redact(uri) + ": fair='" + value
                + "' is not true or false; give fair=false to let a releasing client take the lock again before"
                + " other clients' waiters (barging, which can starve them), or leave it out (fair)");
    }

    /**
     * The URI without its common options, its other parameters unchanged.
     *
     * @param uri the URI as the caller gave it
     * @return the URI for the backend
     */
    static String strip(String uri) {
        Matcher matcher = PARAMETER.matcher(uri);
        while (matcher.find()) {
            String before = uri.substring(0, matcher.start());
            String after = uri.substring(matcher.end());
            if (matcher.group(1).equals("?") && after.startsWith("&")) {
                after = "?" + after.substring(1);
            }
            uri = before + after;
            matcher = PARAMETER.matcher(uri);
        }
        return uri;
    }
}
