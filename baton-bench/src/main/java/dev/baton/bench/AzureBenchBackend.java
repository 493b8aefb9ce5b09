package dev.baton.bench;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlobLeaseClient;
import com.azure.storage.blob.specialized.BlobLeaseClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.baton.LockOptions;
import dev.baton.servers.AzuriteServer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Azure Blob: Baton and a raw baseline (Lease Blob acquire, then release, with the SDK's blocking
 * client), both on the same Azurite blob service (or the service named by {@code --uri}); the raw
 * rows need Azurite's well-known account, so they run on the embedded one only.
 */
final class AzureBenchBackend implements BenchBackend {
    static final LockOptions OPTIONS = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .pollInitialDelay(Duration.ofMillis(10))
            .pollMaxDelay(Duration.ofMillis(100))
            .build();
    private static final String CONTAINER = "baton-bench";

    private AzuriteServer server;

    @Override
    public String id() {
        return "azure";
    }

    @Override
    public List<LockSubject> start(String externalUri) {
        if (externalUri != null) {
            return List.of(BatonSubject.of("baton", externalUri, OPTIONS));
        }
        server = AzuriteServer.start();
        return List.of(
                BatonSubject.of("baton", server.uri(CONTAINER), OPTIONS), new RawLeaseSubject(server.endpoint()));
    }

    @Override
    public PlannedSubjects plannedSubjects(boolean external) {
        return new PlannedSubjects(external ? 1 : 2, 1);
    }

    @Override
    public Duration recoveryHolderLease() {
        return Duration.ofSeconds(15); // Azure's shortest lease
    }

    @Override
    public String consistencyModel() {
        return "Azure Storage blob lease (strongly consistent), on the Azurite emulator";
    }

    @Override
    public String waiterNotification() {
        return "none: waiters poll with capped, jittered backoff (one poller per name and client)";
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * The floor: Lease Blob acquire (30 s) with a fresh lease id, then release, one blocking SDK client
     * per bench client; a taken lock (409) is tried again after 1 ms. No renewal, no fencing, no
     * fairness, no wake-up.
     */
    static final class RawLeaseSubject implements LockSubject {
        private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
        private final String endpoint;

        RawLeaseSubject(String endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public String name() {
            return "raw lease acquire+release";
        }

        @Override
        public Client newClient() {
            BlobContainerClient container = new BlobServiceClientBuilder()
                    .endpoint(endpoint)
                    .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
                    .buildClient()
                    .getBlobContainerClient(CONTAINER);
            container.createIfNotExists();
            return new Client() {
                @Override
                public Held acquire(String lockName) {
                    BlobClient blob = container.getBlobClient("raw/" + lockName);
                    BlobLeaseClient lease = new BlobLeaseClientBuilder()
                            .blobClient(blob)
                            .leaseId(UUID.randomUUID().toString())
                            .buildClient();
                    while (true) {
                        try {
                            lease.acquireLease(30);
                            return lease::releaseLease;
                        } catch (BlobStorageException e) {
                            if (BlobErrorCode.BLOB_NOT_FOUND.equals(e.getErrorCode())) {
                                create(blob);
                            } else if (e.getStatusCode() == 409) {
                                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
                            } else {
                                throw e;
                            }
                        }
                    }
                }

                @Override
                public void close() {
                    // the SDK's HTTP client is shared and needs no closing
                }
            };
        }

        private static void create(BlobClient blob) {
            try {
                blob.getBlockBlobClient()
                        .uploadWithResponse(
                                new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(new byte[0]))
                                        .setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*")),
                                null,
                                null);
            } catch (BlobStorageException e) {
                if (e.getStatusCode() != 409 && e.getStatusCode() != 412) {
                    throw e;
                }
            }
        }
    }
}
