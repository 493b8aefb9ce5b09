package dev.baton.check;

import dev.baton.servers.EtcdServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Baton on one etcd member: the servers jetcd's Lock service runs on as a peer. A minimal target,
 * registered only where no other class registers {@code etcd} ({@link PeerTargets#register}).
 */
final class EtcdTarget extends ServerTarget {
    /** How long a restarted member stays down. */
    static final Duration DOWNTIME = Duration.ofSeconds(1);

    private EtcdServer server;

    private EtcdTarget() {
        super(
                "etcd",
                "Baton, etcd, one member",
                "baton",
                true,
                Set.of(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE, Fault.RESTART));
    }

    static CheckTarget single() {
        return new EtcdTarget();
    }

    @Override
    public void start() {
        if (!EtcdServer.installed()) {
            throw new IllegalStateException(
                    "etcd is not installed; install it with: " + EtcdServer.INSTALL_COMMAND + " (as root)");
        }
        server = EtcdServer.start();
    }

    @Override
    List<InetSocketAddress> addresses() {
        return List.of(server.address(0));
    }

    @Override
    String uri(List<InetSocketAddress> through) {
        return "etcd://" + hostPorts(through) + "/check";
    }

    @Override
    public void hitServer(Fault fault, Random random) throws InterruptedException {
        if (fault != Fault.RESTART) {
            super.hitServer(fault, random);
        }
        server.kill(0);
        Thread.sleep(DOWNTIME.toMillis()); // the outage itself
        server.restart(0);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
