package dev.baton.jdbc.listen;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import javax.net.SocketFactory;
import org.slf4j.LoggerFactory;

/**
 * A LISTEN connection's {@code socketFactory}: pgjdbc's 1 ms read for a pending notification times out
 * at once when nothing is buffered ({@code docs/design/fair-handoff.md}). Public only because pgjdbc
 * instantiates it by name; the package is opened to the driver, not exported.
 */
public final class PendingCheckSocketFactory extends SocketFactory {
    public PendingCheckSocketFactory() {}

    public interface Connector {
        Connection connect(String url, Properties properties) throws SQLException;
    }

    /**
     * Connects with this factory on PostgreSQL unless a socket factory is configured; without it when
     * the driver cannot load it (notifications then arrive a millisecond later, nothing else).
     */
    public static Connection connect(String url, Properties properties, Connector connector) throws SQLException {
        if (url == null
                || !url.startsWith("jdbc:postgresql:")
                || url.contains("socketFactory=")
                || properties.containsKey("socketFactory")) {
            return connector.connect(url, properties);
        }
        Properties pendingCheck = new Properties();
        pendingCheck.putAll(properties);
        pendingCheck.setProperty("socketFactory", PendingCheckSocketFactory.class.getName());
        try {
            return connector.connect(url, pendingCheck);
        } catch (SQLException e) {
            if (!String.valueOf(e.getMessage()).contains("SocketFactory")) {
                throw e;
            }
            LoggerFactory.getLogger(PendingCheckSocketFactory.class)
                    .debug("Baton: the LISTEN connection opens without its socket factory: {}", e.toString());
            return connector.connect(url, properties);
        }
    }

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
