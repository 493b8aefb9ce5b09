package dev.baton.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.LeaseStateType;
import com.azure.storage.blob.options.BlobBreakLeaseOptions;
import com.azure.storage.blob.specialized.BlobLeaseClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockKind;
import dev.baton.LockLostException;
import dev.baton.LockMode;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.servers.AzuriteServer;
import dev.baton.spi.ForwardingLockBackend;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Azure's lease rules, each as Baton meets it, on Azurite: a broken lease cannot be renewed, an
 * expired lease can be (and the holder still counts the gap as lost), writes to a leased blob need
 * the lease id, a foreign lease id releases nothing; plus racing creators, the container, bad
 * credentials and the lease-time range. The raw SDK client plays the other party.
 */
class AzureBlobLeaseRulesTest {
    private static final String CONTAINER = "baton-rules";
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

    private String uri() {
        return server.uri(CONTAINER);
    }

    private AzureBlobLockBackend backend() {
        AzureBlobLockBackend backend = AzureBlobLockBackendProvider.create(uri(), options(), Map.of());
        resources.add(backend);
        return backend;
    }

    private LockClient client(LockOptions options) {
        LockClient client = Baton.connect(uri(), options);
        resources.add(client);
        return client;
    }

    private static LockRequest request(String name) {
        return LockRequest.builder(name, UUID.randomUUID().toString().replace("-", ""), LockKind.MUTEX, LEASE)
                .build();
    }

    private static BlobClient blobOf(String name) {
        return raw.getBlobClient(AzureBlobNames.blobName(AzureBlobNames.DEFAULT_PREFIX, name));
    }

    private static String name() {
        return "rules-" + UUID.randomUUID();
    }

    @Test
    void aBrokenLeaseCannotBeRenewedAndIsNotReleasedAsOurs() {
        AzureBlobLockBackend backend = backend();
        String name = name();
        Grant grant = backend.tryAcquire(request(name)).orElseThrow();
        new BlobLeaseClientBuilder()
                .blobClient(blobOf(name))
                .buildClient()
                .breakLeaseWithResponse(new BlobBreakLeaseOptions().setBreakPeriod(Duration.ZERO), null, null);

        assertThat(backend.renew(grant, LEASE))
                .as("renewing a broken lease (409)")
                .isEmpty();
        Grant next = backend.tryAcquire(request(name)).orElseThrow(() -> new AssertionError("free once broken"));
        assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
        assertThat(backend.release(grant))
                .as("the broken holder releases nothing")
                .isFalse();
        assertThat(backend.tryAcquire(request(name)))
                .as("the new holder keeps it")
                .isEmpty();
        assertThat(backend.release(next)).isTrue();
    }

    @Test
    void anExpiredLeaseNobodyTookMayBeRenewedButTheHolderCountsTheGapAsLost() throws Exception {
        String name = name();
        LockOptions noRenewal = options().toBuilder().autoRenew(false).build();
        List<Grant> granted = new CopyOnWriteArrayList<>();
        LockClient client = Baton.open(
                new ForwardingLockBackend(AzureBlobLockBackendProvider.create(uri(), noRenewal, Map.of())) {
                    @Override
                    public Optional<Grant> tryAcquire(LockRequest request) {
                        Optional<Grant> grant = super.tryAcquire(request);
                        grant.ifPresent(granted::add);
                        return grant;
                    }
                },
                noRenewal);
        resources.add(client);
        Lease lease = client.lock(name).acquire(KitTime.grant());
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        assertThat(Await.result(lost, KitTime.bound(LEASE)))
                .as("the holder's own deadline, counted from when its request was sent, ends it")
                .hasMessageContaining(name);
        Await.condition(
                "Azure to expire the lease",
                KitTime.grant(),
                () -> blobOf(name).getProperties().getLeaseState() == LeaseStateType.EXPIRED);

        AzureBlobLockBackend backend = backend();
        Grant stale = granted.get(0);
        assertThat(backend.renew(stale, LEASE))
                .as("Azure renews an expired lease that nobody took")
                .isPresent();
        assertThat(lease.isValid())
                .as("the holder does not count it valid again")
                .isFalse();
        assertThatThrownBy(lease::checkValid).isInstanceOf(LockLostException.class);
        assertThat(backend.release(stale)).isTrue();
        lease.close();
    }

    @Test
    void writesToALeasedBlobNeedItsLeaseIdSoNoStrangerMovesTheCounter() {
        AzureBlobLockBackend backend = backend();
        String name = name();
        Grant grant = backend.tryAcquire(request(name)).orElseThrow();
        BlobClient blob = blobOf(name);
        Map<String, String> forged = Map.of(AzureBlobFence.TOKEN_KEY, "1000000");

        assertThatThrownBy(() -> blob.setMetadata(forged)).isInstanceOfSatisfying(BlobStorageException.class, e -> {
            assertThat(e.getStatusCode()).isEqualTo(412);
            assertThat(e.getErrorCode()).isEqualTo(BlobErrorCode.LEASE_ID_MISSING);
        });
        String stranger = AzureBlobLockBackend.leaseId(request(name).ownerId());
        assertThatThrownBy(() -> blob.setMetadataWithResponse(
                        forged, new BlobRequestConditions().setLeaseId(stranger), null, null))
                .isInstanceOfSatisfying(BlobStorageException.class, e -> assertThat(e.getStatusCode())
                        .isEqualTo(412));
        assertThat(blob.getProperties().getMetadata())
                .containsEntry(AzureBlobFence.TOKEN_KEY, Long.toString(grant.fencingToken()));

        assertThat(backend.release(grant)).isTrue();
        Grant next = backend.tryAcquire(request(name)).orElseThrow();
        assertThat(next.fencingToken()).isEqualTo(grant.fencingToken() + 1);
        backend.release(next);
    }

    @Test
    void tokensKeepRisingAcrossBackendsThatEachRememberTheirLastWrite() {
        AzureBlobLockBackend first = backend();
        AzureBlobLockBackend second = backend();
        String name = name();
        List<Long> tokens = new ArrayList<>();
        for (AzureBlobLockBackend backend : List.of(first, first, second, first, second, second, first)) {
            Grant grant = backend.tryAcquire(request(name)).orElseThrow();
            tokens.add(grant.fencingToken());
            assertThat(backend.release(grant)).isTrue();
        }
        assertThat(tokens).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    }

    @Test
    void aForeignLeaseIdNeverRenewsOrReleases() {
        AzureBlobLockBackend backend = backend();
        String name = name();
        Grant grant = backend.tryAcquire(request(name)).orElseThrow();
        Grant foreign = Grant.builder(name, request(name).ownerId(), LockMode.EXCLUSIVE)
                .fencingToken(grant.fencingToken())
                .expiresAt(grant.expiresAt())
                .build();

        assertThat(backend.renew(foreign, LEASE)).isEmpty();
        assertThat(backend.release(foreign)).isFalse();
        assertThat(blobOf(name).getProperties().getLeaseState()).isEqualTo(LeaseStateType.LEASED);
        assertThat(backend.tryAcquire(request(name)))
                .as("still held by its owner")
                .isEmpty();
        assertThat(backend.renew(grant, LEASE)).isPresent();
        assertThat(backend.release(grant)).isTrue();
        assertThat(backend.release(grant)).as("releasing twice").isFalse();
    }

    @Test
    void racingCreatorsOfANewLockGetOneGrantWithTheFirstToken() throws Exception {
        String name = name();
        int racers = 6;
        List<AzureBlobLockBackend> backends = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            backends.add(backend());
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(racers);
        List<Future<Optional<Grant>>> results = new ArrayList<>();
        List<Grant> grants = new ArrayList<>();
        try {
            for (AzureBlobLockBackend backend : backends) {
                results.add(threads.submit(() -> {
                    start.await();
                    return backend.tryAcquire(request(name));
                }));
            }
            start.countDown();
            for (Future<Optional<Grant>> result : results) {
                Await.result(result, KitTime.bound(AzuriteServer.CLIENT_OPERATION_TIMEOUT))
                        .ifPresent(grants::add);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(grants).as("grants among %d racing creators", racers).hasSize(1);
        assertThat(grants.get(0).fencingToken()).isEqualTo(1);
        backends.get(0).release(grants.get(0));
    }

    @Test
    void aMissingContainerIsCreatedWhenAllowedAndNamedWhenNot() {
        String container = "missing-" + UUID.randomUUID().toString().substring(0, 8);
        String name = name();
        String base = server.uri(container);
        try (LockClient strict = Baton.connect(base + "&createContainer=false", options())) {
            assertThatThrownBy(() -> strict.lock(name).acquire(KitTime.grant()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("container '" + container + "' does not exist")
                    .hasMessageContaining("createContainer=true");
        }
        try (LockClient creating = Baton.connect(base, options());
                Lease lease = creating.lock(name).acquire(KitTime.grant())) {
            assertThat(lease.fencingToken()).isEqualTo(1);
        }
    }

    @Test
    void badCredentialsAreRefusedWithTheirSourceAndTheFix() {
        String wrongKey = java.util.Base64.getEncoder().encodeToString(new byte[64]);
        String uri = "azblob://" + AzuriteServer.ACCOUNT + "/" + CONTAINER + "?endpoint=" + server.endpoint()
                + "&accountKey=" + URLEncoder.encode(wrongKey, StandardCharsets.UTF_8);
        String name = name();
        LockOptions options = options();
        try (LockClient client = Baton.connect(uri, options)) {
            KitTime.Stopwatch refused = KitTime.stopwatch();
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ofSeconds(30)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("403")
                    .hasMessageContaining("accountKey in the URI")
                    .hasMessageNotContaining(wrongKey);
            assertThat(refused.millis())
                    .as("a 403 is not retried (%s)", refused)
                    // One call, never the operation timeout that retries would run for.
                    .isLessThan(Math.min(
                            refused.allows(KitTime.OPERATION_TIMEOUT).toMillis(),
                            options.operationTimeout().toMillis()));
        }
    }

    @Test
    void throttlingIsRetriedWithinTheOperationTimeoutThenNamed() throws Exception {
        try (ThrottlingGate gate = ThrottlingGate.start("http://" + server.host() + ":" + server.port())) {
            String viaGate = "azblob://" + AzuriteServer.ACCOUNT + "/" + CONTAINER + "?endpoint=" + gate.address()
                    + "/" + AzuriteServer.ACCOUNT + "&accountKey="
                    + URLEncoder.encode(AzuriteServer.ACCOUNT_KEY, StandardCharsets.UTF_8);
            LockOptions options = options();
            AzureBlobLockBackend backend = AzureBlobLockBackendProvider.create(viaGate, options, Map.of());
            resources.add(backend);
            String name = name();

            gate.refuseNext(3);
            Grant grant = backend.tryAcquire(request(name)).orElseThrow();
            assertThat(gate.refused()).as("503 answers retried").isEqualTo(3);
            assertThat(backend.release(grant)).isTrue();

            gate.refuseNext(Integer.MAX_VALUE);
            KitTime.Stopwatch retried = KitTime.stopwatch();
            assertThatThrownBy(() -> backend.tryAcquire(request(name)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("503 ServerBusy")
                    .hasMessageContaining("operationTimeout");
            assertThat(retried.millis())
                    .as("retried for the operation timeout, not longer (%s)", retried)
                    .isBetween(
                            options.operationTimeout().toMillis() - 100,
                            retried.allows(options.operationTimeout().plus(KitTime.PAST_DEADLINE))
                                    .toMillis());
            assertThat(gate.refused()).as("retried several times").isGreaterThan(5);
        }
    }

    @Test
    void leaseTimesOutsideAzuresRangeAreRefusedAtConnect() {
        for (Duration bad : List.of(Duration.ofSeconds(2), Duration.ofMillis(14_999), Duration.ofMillis(60_001))) {
            assertThatThrownBy(() -> Baton.connect(uri(), options().withLeaseTime(bad)))
                    .as("lease time %s", bad)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("leaseTime " + bad)
                    .hasMessageContaining("15 s to 60 s");
        }
        for (Duration good : List.of(Duration.ofSeconds(15), Duration.ofMillis(15_500), Duration.ofSeconds(60))) {
            client(options().withLeaseTime(good)).close();
        }
        assertThat(AzureBlobLockBackend.leaseSeconds(Duration.ofMillis(15_500)))
                .as("the server's lease is never shorter than Baton's")
                .isEqualTo(16);
        assertThat(AzureBlobLockBackend.leaseSeconds(Duration.ofSeconds(60))).isEqualTo(60);
    }

    @Test
    void anExtensionIsBetween15sAndTheDurationTheLeaseWasAcquiredWith() {
        String name = name();
        LockOptions options = options().toBuilder()
                .leaseTime(Duration.ofSeconds(20))
                .autoRenew(false)
                .build();
        try (Lease lease = client(options).lock(name).acquire(KitTime.grant())) {
            for (Duration bad : List.of(Duration.ofSeconds(14), Duration.ofMillis(20_001))) {
                assertThatThrownBy(() -> lease.extend(bad))
                        .as("extension %s", bad)
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("'" + name + "'")
                        .hasMessageContaining("15s to 20s");
            }
            assertThat(lease.isValid()).isTrue();
            lease.extend(Duration.ofSeconds(20));
            lease.checkValid();
        }
    }
}
