package dev.baton.bench;

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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy that delays every byte by a fixed time in each direction, as a longer link
 * does: what was read is written once its delay has passed, by a scheduler per direction, so many
 * requests can be under way at once (the link adds latency, not a limit on throughput).
 */
final class LatencyProxy implements AutoCloseable {
    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();
    private volatile long oneWayNanos;

    private LatencyProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "bench-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy on a free loopback port in front of {@code target}, adding nothing until {@link #roundTrip}. */
    static LatencyProxy start(InetSocketAddress target) {
        try {
            return new LatencyProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a proxy for " + target, e);
        }
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Adds {@code latency} to every round trip from now on: half of it in each direction. */
    void roundTrip(Duration latency) {
        oneWayNanos = latency.toNanos() / 2;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                open.add(client);
                open.add(server);
                forward(client, server);
                forward(server, client);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void forward(Socket from, Socket to) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        // One writer thread per direction keeps the bytes in order (equal delays, increasing times).
        ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bench-proxy-write");
            thread.setDaemon(true);
            return thread;
        });
        open.add(writer::shutdownNow);
        Thread reader = new Thread(
                () -> {
                    byte[] buffer = new byte[64 * 1024];
                    try {
                        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                            byte[] bytes = Arrays.copyOf(buffer, n);
                            writer.schedule(() -> write(out, bytes, to), oneWayNanos, TimeUnit.NANOSECONDS);
                        }
                    } catch (IOException e) {
                        // the connection ended
                    }
                    writer.schedule(() -> closeQuietly(to), oneWayNanos, TimeUnit.NANOSECONDS);
                },
                "bench-proxy-read");
        reader.setDaemon(true);
        reader.start();
    }

    private static void write(OutputStream out, byte[] bytes, Socket to) {
        try {
            out.write(bytes);
        } catch (IOException e) {
            closeQuietly(to);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // best effort
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        open.forEach(LatencyProxy::closeQuietly);
    }
}
