package dev.baton.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Finds a TCP port that is free on the loopback interface at the time of the call. */
final class FreePort {

    static final String LOOPBACK = "127.0.0.1";

    private FreePort() {}

    /**
     * Binds an ephemeral port on {@code 127.0.0.1}, closes it again and returns its number. Another
     * process may take the port before the caller binds it, so callers retry on a clash.
     */
    static int find() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free port on " + LOOPBACK, e);
        }
    }
}
