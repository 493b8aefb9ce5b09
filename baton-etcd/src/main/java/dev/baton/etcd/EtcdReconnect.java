package dev.baton.etcd;

import io.etcd.jetcd.Client;
import io.grpc.ManagedChannel;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the client's gRPC channel try to connect again now, when a call found etcd unreachable.
 *
 * <p>Why: while no member can be reached, gRPC waits longer and longer between connection attempts
 * (1 s, then 1.6 times more each time, up to 2 minutes), and with {@code waitForReady(false)} every
 * call in between fails at once. A client cut off for a minute then kept failing for up to a minute
 * after the network was back. Baton retries a call within its operation timeout anyway, so each retry
 * asks the channel to reconnect first (at most every 200 ms), and the first retry after the network
 * heals gets through.
 *
 * <p>jetcd does not expose its channel: it is read once, reflectively, from jetcd 0.8's client
 * ({@code ClientImpl.connectionManager.getChannel()}); if a later jetcd moves it, this logs once and
 * does nothing (calls still succeed once gRPC reconnects by itself). {@code JetcdOnThisServerTest}
 * checks that the channel is found.
 */
final class EtcdReconnect {
    private static final Logger log = LoggerFactory.getLogger(EtcdReconnect.class);
    private static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final Client client;
    private final AtomicLong lastReset = new AtomicLong(System.nanoTime() - MIN_INTERVAL_NANOS);
    private volatile ManagedChannel channel;
    private volatile boolean unavailable;

    EtcdReconnect(Client client) {
        this.client = client;
    }

    /** Asks the channel to connect again without waiting for its back-off (at most every 200 ms). */
    void now() {
        long last = lastReset.get();
        long now = System.nanoTime();
        if (now - last < MIN_INTERVAL_NANOS || !lastReset.compareAndSet(last, now)) {
            return;
        }
        ManagedChannel found = channel();
        if (found != null) {
            found.resetConnectBackoff();
        }
    }

    /** The client's channel, or null if this jetcd keeps it elsewhere. */
    ManagedChannel channel() {
        ManagedChannel found = channel;
        if (found != null || unavailable) {
            return found;
        }
        try {
            Field manager = client.getClass().getDeclaredField("connectionManager");
            manager.setAccessible(true);
            Object connections = manager.get(client);
            Method getChannel = connections.getClass().getDeclaredMethod("getChannel");
            getChannel.setAccessible(true);
            found = (ManagedChannel) getChannel.invoke(connections);
            channel = found;
            return found;
        } catch (ReflectiveOperationException | RuntimeException e) {
            unavailable = true;
            log.warn(
                    "Baton etcd backend: cannot reach jetcd's gRPC channel ({}); after a network outage, calls wait for"
                            + " gRPC's own reconnection back-off (up to 2 minutes)",
                    e.toString());
            return null;
        }
    }
}
