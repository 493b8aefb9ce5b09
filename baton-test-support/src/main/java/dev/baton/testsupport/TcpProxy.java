package dev.baton.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback TCP proxy for fault injection: forwards to a real server until {@link #cut()} closes
 * every connection and refuses new ones, and {@link #restore()} accepts again on the same port. It
 * can add {@link #latency(Duration) latency} and {@link #pause() hold back} traffic on connections
 * that stay open.
 */
public final class TcpProxy implements AutoCloseable {
    private static final long PAUSED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;
    private volatile boolean closed;
    private volatile long delayNanos;
    private volatile boolean paused;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = bind(0);
        this.port = listener.getLocalPort();
        startAccepting(listener);
    }

    /**
     * Starts a proxy on a free loopback port in front of {@code target}.
     *
     * @param target the server to forward connections to
     * @return a running proxy that forwards at once; the caller closes it
     * @throws UncheckedIOException if no port can be bound
     */
    public static TcpProxy start(InetSocketAddress target) {
        try {
            return new TcpProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a proxy for " + target, e);
        }
    }

    /**
     * The address clients should connect to.
     *
     * @return the proxy's loopback address and port, fixed for its lifetime
     */
    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** Closes every open connection and stops listening: new connections are refused. */
    public synchronized void cut() {
        closeQuietly(listener);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    /** Accepts connections again on the same port after {@link #cut()}. */
    public synchronized void restore() {
        if (!listener.isClosed()) {
            return;
        }
        // A connection accepted while cut() ran, or a socket still closing, can hold the port for a
        // moment: retry within a bound.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                listener = bind(port);
                break;
            } catch (IOException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new UncheckedIOException("cannot listen again on port " + port, e);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
        startAccepting(listener);
    }

    /**
     * Delays every byte by {@code oneWay} in each direction from now on (a round trip gains twice
     * that); zero forwards at once.
     *
     * @param oneWay the delay added in each direction; zero or positive
     */
    public void latency(Duration oneWay) {
        delayNanos = oneWay.toNanos();
    }

    /**
     * Holds back every byte in both directions while connections stay open, as a link that silently
     * drops traffic does: calls through it hang until their own timeout. {@link #resume()} delivers
     * what was held back.
     */
    public void pause() {
        paused = true;
    }

    /** Delivers again, starting with what {@link #pause()} held back. */
    public void resume() {
        paused = false;
    }

    @Override
    public synchronized void close() {
        closed = true;
        cut();
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return socket;
    }

    private void startAccepting(ServerSocket server) {
        Thread acceptor = new Thread(() -> accept(server), "tck-proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept(ServerSocket server) {
        while (!closed && !server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                try {
                    upstream.connect(target, 5_000);
                } catch (IOException e) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                if (server.isClosed()) {
                    // cut() ran while this connection was being set up
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                return; // listener closed
            }
        }
    }

    /**
     * Forwards one direction: a reader stamps each chunk with when it may be delivered (now plus the
     * delay) and a writer delivers it then, so that added latency delays every message without
     * limiting how many are under way, as a long link does.
     */
    private void pump(Socket from, Socket to) {
        LinkedBlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
        Thread reader = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream()) {
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            chunks.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delayNanos));
                        }
                    } catch (IOException e) {
                        // closed by cut() or by a peer, or the connection broke; nothing to keep
                    } finally {
                        chunks.add(Chunk.END);
                    }
                },
                "tck-proxy-read-" + port);
        Thread writer = new Thread(
                () -> {
                    try (OutputStream out = to.getOutputStream()) {
                        while (true) {
                            Chunk chunk = chunks.take();
                            if (chunk == Chunk.END) {
                                break;
                            }
                            awaitDelivery(chunk.dueNanos, to);
                            if (to.isClosed()) {
                                break;
                            }
                            out.write(chunk.bytes);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // closed by cut() or by a peer; nothing to keep
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        sockets.remove(from);
                        sockets.remove(to);
                    }
                },
                "tck-proxy-write-" + port);
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    /** Waits until {@code dueNanos} and while the proxy is paused, or until the socket closes. */
    private void awaitDelivery(long dueNanos, Socket to) {
        while (!to.isClosed() && (paused || System.nanoTime() - dueNanos < 0)) {
            long wait = paused ? PAUSED_POLL_NANOS : dueNanos - System.nanoTime();
            LockSupport.parkNanos(Math.max(1, Math.min(wait, PAUSED_POLL_NANOS)));
        }
    }

    /** Bytes read from one side, and when they may be delivered to the other. */
    private record Chunk(byte[] bytes, long dueNanos) {
        static final Chunk END = new Chunk(new byte[0], 0);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing is best effort
        }
    }
}
