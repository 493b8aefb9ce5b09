package dev.baton.jdbc.listen;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import javax.net.SocketFactory;

/**
 * Sockets for a LISTEN connection, given to pgjdbc as {@code socketFactory}: after each message,
 * pgjdbc's {@code getNotifications} asks whether another one is pending by reading with a 1 ms socket
 * timeout ({@code PGStream.hasMessagePending}), so every notification reaches the caller at least 1 ms
 * late. On these sockets a read under a 1 ms timeout with nothing in the kernel's buffer answers at
 * once as the timeout (a message arriving right after is read by the next call). Nothing else
 * changes: other timeouts and reads behave as on a plain socket.
 *
 * <p>Baton gives it to the connection its {@code PgNotifications} LISTENs on, never to a pool's
 * connections: a fair release NOTIFYs the head waiter, and without it each hand-off waits the extra
 * millisecond, which at sub-millisecond hand-offs halves their rate ({@code docs/design/fair-handoff.md}).
 * Public only because pgjdbc
 * instantiates it by name ({@code socketFactory}); the package is not exported, only opened to the
 * driver.
 */
public final class PendingCheckSocketFactory extends SocketFactory {
    public PendingCheckSocketFactory() {}

    @Override
    public Socket createSocket() {
        return new PendingCheckSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        throw new UnsupportedOperationException("pgjdbc creates an unconnected socket");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
        throw new UnsupportedOperationException("pgjdbc creates an unconnected socket");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) {
        throw new UnsupportedOperationException("pgjdbc creates an unconnected socket");
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
        throw new UnsupportedOperationException("pgjdbc creates an unconnected socket");
    }

    private static final class PendingCheckSocket extends Socket {
        private volatile int timeout;
        private InputStream in;

        @Override
        public synchronized void setSoTimeout(int millis) throws SocketException {
            timeout = millis;
            super.setSoTimeout(millis);
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                InputStream raw = super.getInputStream();
                in = new FilterInputStream(raw) {
                    @Override
                    public int read() throws IOException {
                        nothingPending();
                        return raw.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        nothingPending();
                        return raw.read(b, off, len);
                    }

                    private void nothingPending() throws IOException {
                        if (timeout == 1 && raw.available() == 0) {
                            throw new SocketTimeoutException("no message pending");
                        }
                    }
                };
            }
            return in;
        }
    }
}
