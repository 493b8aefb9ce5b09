package dev.baton.azure;

import dev.baton.LockOptions;
import dev.baton.servers.AzuriteServer;
import dev.baton.tck.Capability;
import dev.baton.tck.KitTime;
import dev.baton.tck.LockBackendContract;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance kit on Azurite's blob service ({@code BATON_AZURE_URI} points it at an Azure
 * account instead). Azure's leases last at least 15 s, which the fixture declares; the kit's groups
 * run in parallel (junit-platform.properties) so that the long waits overlap.
 */
class AzureBlobContractTest extends LockBackendContract {
    private static AzuriteServer server;

    @BeforeAll
    static void startServer() {
        server = AzuriteServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** The kit's options, with the operation timeout a single-threaded emulator needs. */
    @Override
    protected LockOptions options() {
        return super.options().toBuilder()
                .operationTimeout(KitTime.operationTimeout(AzuriteServer.CLIENT_OPERATION_TIMEOUT))
                .build();
    }

    @Override
    protected LockBackendFixture fixture() {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return server.external() ? "azure-blob, external" : "azure-blob on Azurite " + AzuriteServer.VERSION;
            }

            @Override
            public String uri() {
                return server.uri("baton-tck");
            }

            @Override
            public InetSocketAddress serverAddress() {
                return new InetSocketAddress(server.host(), server.port());
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of(); // read/write locks: not on blob leases (see README)
            }

            @Override
            public Duration minimumLeaseTime() {
                return AzureBlobLockBackend.MIN_LEASE;
            }
        };
    }
}
