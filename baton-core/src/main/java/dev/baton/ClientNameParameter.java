package dev.baton;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code clientName} parameter every backend URI accepts ({@code redis://host:6379?clientName=billing},
 * {@code jdbc:postgresql://host/db?clientName=billing}): the core reads it into {@link
 * LockOptions#clientName()} and takes it out of the URI before the backend parses the rest, so that no
 * backend (nor a JDBC driver) sees a parameter it does not know.
 */
final class ClientNameParameter {
    private static final Pattern PARAMETER = Pattern.compile("([?&;])clientName=([^&;]*)");

    private ClientNameParameter() {}

    /**
     * The options with the URI's client name, if it has one.
     *
     * @param uri the URI as the caller gave it
     * @param options the caller's options
     * @return {@code options}, or a copy with the URI's client name
     * @throws LockConfigurationException if the name is not a valid client name
     */
    static LockOptions apply(String uri, LockOptions options) {
        if (uri == null || options == null) {
            return options;
        }
        Matcher matcher = PARAMETER.matcher(uri);
        if (!matcher.find()) {
            return options;
        }
        String name = URLDecoder.decode(matcher.group(2), StandardCharsets.UTF_8);
        return name.equals(options.clientName())
                ? options
                : options.toBuilder().clientName(name).build();
    }

    /**
     * The URI without its {@code clientName} parameter, its other parameters unchanged.
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
