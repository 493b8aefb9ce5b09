package dev.baton.servers;

/** Extracts the host and port from JDBC URLs that point at external servers. */
final class JdbcUrls {

    /** A host and port; {@code port} is {@code -1} and {@code host} empty when unknown. */
    record HostPort(String host, int port) {}

    private JdbcUrls() {}

    /**
     * Parses {@code jdbc:<sub>://host[:port][,host2...]/...}. Without a port, {@code defaultPort}
     * is used; an empty host means {@code localhost}. A URL with no {@code //} authority yields
     * {@code noNetwork}.
     *
     * @throws IllegalArgumentException when the port is not a number
     */
    static HostPort parse(String url, int defaultPort, HostPort noNetwork) {
        int start = url.indexOf("://");
        if (start < 0) {
            return noNetwork;
        }
        start += 3;
        int end = start;
        while (end < url.length() && "/?;".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        String authority = url.substring(start, end);
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            authority = authority.substring(at + 1);
        }
        int comma = authority.indexOf(',');
        if (comma >= 0) {
            authority = authority.substring(0, comma);
        }
        String host;
        String portText = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unterminated IPv6 address in JDBC URL: " + url);
            }
            host = authority.substring(1, close);
            if (authority.length() > close + 1 && authority.charAt(close + 1) == ':') {
                portText = authority.substring(close + 2);
            }
        } else {
            int colon = authority.lastIndexOf(':');
            if (colon >= 0) {
                host = authority.substring(0, colon);
                portText = authority.substring(colon + 1);
            } else {
                host = authority;
            }
        }
        if (host.isEmpty()) {
            host = "localhost";
        }
        int port = defaultPort;
        if (portText != null && !portText.isEmpty()) {
            try {
                port = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid port '" + portText + "' in JDBC URL: " + url, e);
            }
        }
        return new HostPort(host, port);
    }
}
