package dev.baton.check;

import dev.baton.servers.AzuriteServer;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Baton's Azure Blob lock on Azurite, the Azure Storage emulator, started to keep its state on disk
 * so that a restart finds its blobs and their fencing counters again. Not their leases: Azurite comes
 * back from a restart with every lease expired (Azure keeps them), so a restart lets other clients in
 * under the holders, as a Redis restart without persistence does; the fence catches their stale
 * writes, and the overlaps fall inside the restart's window. Strict otherwise: a blob lease is held
 * by one lease id at a time. Azure's leases last at least 15 s, so a run's lease is raised to that
 * and its duration stretched with it (see {@link CheckSettings#withMinimumLease(Duration)}).
 */
final class AzureTargets {
    /** Azure Blob's shortest lease. */
    static final Duration MINIMUM_LEASE = Duration.ofSeconds(15);

    private AzureTargets() {}

    static CheckTarget azurite() {
        return new Azurite();
    }

    private static final class Azurite extends ServerTarget {
        private AzuriteServer server;

        Azurite() {
            super(
                    "azure",
                    "Baton, Azure Blob leases on Azurite",
                    "baton",
                    true,
                    Set.of(Fault.KILL, Fault.PAUSE, Fault.CUT, Fault.BLACKHOLE, Fault.RESTART));
        }

        @Override
        public Duration minimumLease() {
            return MINIMUM_LEASE;
        }

        @Override
        public void start() {
            server = AzuriteServer.startPersistent();
        }

        @Override
        List<InetSocketAddress> addresses() {
            return List.of(new InetSocketAddress(server.host(), server.port()));
        }

        @Override
        String uri(List<InetSocketAddress> through) {
            InetSocketAddress proxy = through.get(0);
            return "azblob://" + AzuriteServer.ACCOUNT + "/check?endpoint=http://" + proxy.getHostString() + ":"
                    + proxy.getPort() + "/" + AzuriteServer.ACCOUNT + "&accountKey="
                    + URLEncoder.encode(AzuriteServer.ACCOUNT_KEY, StandardCharsets.UTF_8);
        }

        @Override
        public void hitServer(Fault fault, Random random) throws InterruptedException {
            if (fault != Fault.RESTART) {
                super.hitServer(fault, random);
            }
            server.restart();
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
            }
        }
    }
}
