package dev.baton.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.specialized.BlobLeaseClient;
import com.azure.storage.blob.specialized.BlobLeaseClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.baton.Baton;
import dev.baton.Holder;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.servers.AzuriteServer;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator side on Azurite, where blobs show more than the kit looks at: the holder description
 * as a header-safe metadata value, listing by decoded names (prefixes inside a base64 group, foreign
 * blobs, leases taken by something other than Baton), and forced release of one owner or of a lease
 * whose holder has not written its counter yet. The raw SDK client plays the other party.
 */
class AzureBlobOperatorsTest {
    private static final String CONTAINER = "baton-operators";
    private static final Duration LEASE = AzureBlobLockBackend.MIN_LEASE;
    /**
     * Options of this class's clients, made per use: the operation timeout is the one a
     * single-threaded emulator needs, stretched by the machine's current CPU pressure.
     */
    private static LockOptions options() {
        return LockOptions.builder()
                .leaseTime(LEASE)
                .operationTimeout(KitTime.operationTimeout(AzuriteServer.CLIENT_OPERATION_TIMEOUT))
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
    }

    private static AzuriteServer server;
    private static BlobContainerClient raw;
    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        server = AzuriteServer.start();
        raw = new BlobServiceClientBuilder()
                .endpoint(server.endpoint())
                .credential(new StorageSharedKeyCredential(AzuriteServer.ACCOUNT, AzuriteServer.ACCOUNT_KEY))
                .buildClient()
                .getBlobContainerClient(CONTAINER);
        raw.createIfNotExists();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private static String uri() {
        return server.uri(CONTAINER);
    }

    private AzureBlobLockBackend backend() {
        return track(AzureBlobLockBackendProvider.create(uri(), options(), Map.of()));
    }

    private static LockRequest request(String name, String holder) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, LEASE)
                .holder(holder)
                .build();
    }

    private static BlobClient blobOf(String name) {
        return raw.getBlobClient(AzureBlobNames.blobName(AzureBlobNames.DEFAULT_PREFIX, name));
    }

    private static String base() {
        return "ops-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    @Test
    void theDescriptionIsStoredHeaderSafeInTheCounterWriteAndReadBackWhole() {
        String name = base() + "described";
        String clientName = "Zürich  billing 中 100%";
        LockClient client = track(Baton.connect(
                uri(), options().toBuilder().clientName(clientName).build()));
        try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
            String stored = blobOf(name).getProperties().getMetadata().get(AzureBlobFence.HOLDER_KEY);
            assertThat(stored).matches("[\\x20-\\x7e]+").startsWith("Z%C3%BCrich %20billing %E4%B8%AD 100%25 on ");

            LockInfo info = track(Baton.admin(uri(), options())).status(name).orElseThrow();
            Holder holder = info.holders().get(0);
            assertThat(holder.description())
                    .startsWith(clientName + " on ")
                    .endsWith(" thread " + Thread.currentThread().getName());
            assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(info.waiters()).isEmpty();
        }
    }

    @Test
    void aGrantWithoutADescriptionDoesNotInheritThePreviousOne() {
        AzureBlobLockBackend backend = backend();
        String name = base() + "inherit";
        Grant described = backend.tryAcquire(request(name, "first holder")).orElseThrow();
        assertThat(backend.inspect(name).orElseThrow().holders().get(0).description())
                .isEqualTo("first holder");
        backend.release(described);

        Grant bare = backend.tryAcquire(request(name, "")).orElseThrow();
        assertThat(blobOf(name).getProperties().getMetadata()).doesNotContainKey(AzureBlobFence.HOLDER_KEY);
        Holder holder = backend.inspect(name).orElseThrow().holders().get(0);
        assertThat(holder.description()).isEmpty();
        assertThat(holder.ownerId()).isEqualTo(bare.ownerId());
        backend.release(bare);
    }

    @Test
    void listMatchesDecodedNamesAndLeavesOutFreeLocksAndForeignBlobs() {
        AzureBlobLockBackend backend = backend();
        String base = base(); // 13 bytes: base + "a" ends inside a base64 group
        List<Grant> held = new ArrayList<>();
        for (String name : List.of(base + "a", base + "ab", base + "abc", base + "ü", base + "b/c")) {
            held.add(backend.tryAcquire(request(name, "holder of " + name)).orElseThrow());
        }
        backend.release(backend.tryAcquire(request(base + "free", "")).orElseThrow());
        // A lock blob leased by something other than Baton, with no metadata.
        BlobClient foreign = blobOf(base + "foreign");
        foreign.upload(BinaryData.fromBytes(new byte[0]));
        new BlobLeaseClientBuilder().blobClient(foreign).buildClient().acquireLease(15);
        // Blobs that encode no lock name, leased, under the prefix.
        for (String stray : List.of("baton/sub/" + base, AzureBlobNames.blobName("baton/", base + "x") + "==")) {
            BlobClient blob = raw.getBlobClient(stray);
            blob.upload(BinaryData.fromBytes(new byte[0]));
            new BlobLeaseClientBuilder().blobClient(blob).buildClient().acquireLease(15);
        }

        assertThat(backend.list(base))
                .extracting(LockInfo::name)
                .containsExactly(base + "a", base + "ab", base + "abc", base + "b/c", base + "foreign", base + "ü");
        assertThat(backend.list(base + "a"))
                .extracting(LockInfo::name)
                .containsExactly(base + "a", base + "ab", base + "abc");
        assertThat(backend.list(base + "ab")).extracting(LockInfo::name).containsExactly(base + "ab", base + "abc");
        assertThat(backend.list(base + "ü")).extracting(LockInfo::name).containsExactly(base + "ü");
        assertThat(backend.list(base + "free")).isEmpty();
        assertThat(backend.listingMethod()).contains("lists the container's blobs under baton/");

        LockInfo ab = backend.list(base + "ab").get(0);
        assertThat(ab.kind()).isEqualTo(LockKind.MUTEX);
        assertThat(ab.permits()).isEqualTo(1);
        assertThat(ab.waiters()).isEmpty();
        assertThat(ab.holders().get(0).description()).isEqualTo("holder of " + base + "ab");
        Holder stranger = backend.list(base + "foreign").get(0).holders().get(0);
        assertThat(stranger.ownerId()).isEqualTo(AzureBlobLockListing.FOREIGN_OWNER);
        assertThat(stranger.description()).isEmpty();
        assertThat(stranger.fencingToken()).isZero();
        assertThat(backend.list(""))
                .as("every lock of the container, no stray blob")
                .extracting(LockInfo::name)
                .contains(base + "a")
                .allMatch(name -> name.startsWith("ops-"));

        held.forEach(backend::release);
        assertThat(backend.list(base)).extracting(LockInfo::name).containsExactly(base + "foreign");
    }

    @Test
    void listingAContainerThatDoesNotExistFindsNothing() {
        String missing = "missing-" + UUID.randomUUID().toString().substring(0, 8);
        try (LockAdmin admin = Baton.admin(server.uri(missing) + "&createContainer=false", options())) {
            assertThat(admin.locks("")).isEmpty();
            assertThat(admin.forceRelease("anything")).isEmpty();
        }
    }

    @Test
    void aForcedReleaseOfAnotherOwnerBreaksNothing() {
        String name = base() + "kept";
        LockClient client = track(Baton.connect(uri(), options()));
        LockAdmin admin = track(Baton.admin(uri(), options()));
        try (Lease lease = client.lock(name).acquire(KitTime.grant())) {
            assertThat(admin.forceRelease(name, "0".repeat(32))).isEmpty();
            assertThat(admin.status(name)).map(LockInfo::fencingToken).hasValue(lease.fencingToken());
            assertThat(track(Baton.connect(uri(), options())).lock(name).tryAcquire())
                    .isEmpty();
            String owner = admin.status(name).orElseThrow().owners().get(0);
            assertThat(admin.forceRelease(name, owner))
                    .flatExtracting(LockInfo::owners)
                    .containsExactly(owner);
            assertThat(admin.status(name)).isEmpty();
        }
    }

    @Test
    void aLeaseWhoseCounterWriteHasNotLandedIsBrokenAndItsWriteThenFails() {
        AzureBlobLockBackend backend = backend();
        String name = base() + "pending";
        Grant before = backend.tryAcquire(request(name, "earlier holder")).orElseThrow();
        backend.release(before);
        // A new holder's lease, taken as the backend takes it, before its counter write.
        String pendingOwner = UUID.randomUUID().toString().replace("-", "");
        String leaseId = AzureBlobLockBackend.leaseId(pendingOwner);
        BlobLeaseClient pending = new BlobLeaseClientBuilder()
                .blobClient(blobOf(name))
                .leaseId(leaseId)
                .buildClient();
        pending.acquireLease(15);

        List<LockInfo> broken = track(Baton.admin(uri(), options())).forceRelease(name);
        assertThat(broken)
                .as("the blob still names the earlier grant")
                .flatExtracting(LockInfo::owners)
                .containsExactly(before.ownerId());
        assertThatThrownBy(() -> blobOf(name)
                        .setMetadataWithResponse(
                                Map.of(AzureBlobFence.TOKEN_KEY, "99"),
                                new BlobRequestConditions().setLeaseId(leaseId),
                                null,
                                null))
                .as("the pending holder's counter write")
                .isInstanceOfSatisfying(BlobStorageException.class, refused -> assertThat(refused.getStatusCode())
                        .isEqualTo(412));

        Grant next = backend.tryAcquire(request(name, "")).orElseThrow(() -> new AssertionError("free once broken"));
        assertThat(next.fencingToken()).isEqualTo(before.fencingToken() + 1);
        backend.release(next);
    }
}
