package dev.baton.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Finds a TCP port that is free on the loopback interface at the time of the call, and asks whatever
 * listens on a loopback port a question (the readiness probes of the servers).
 */
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

    /**
     * A free port, as {@link #find}, that is not in {@code taken}, which it joins: a port just probed
     * free may be handed out again at once, so servers started together check their ports apart.
     */
    static int findNotIn(Set<Integer> taken) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = find();
            if (taken.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("could not find " + (taken.size() + 1) + " distinct free ports on " + LOOPBACK);
    }

    /**
     * Sends {@code request} to {@code port} on {@code 127.0.0.1} on a new connection and reads the
     * reply: up to {@code max} bytes, fewer if the server closes the connection first.
     *
     * @return the reply, or {@code null} if nothing accepted or answered within {@code timeoutMillis}
     */
    static byte[] exchange(int port, String request, int max, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(LOOPBACK, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return socket.getInputStream().readNBytes(max);
        } catch (IOException e) {
            return null;
        }
    }
}
