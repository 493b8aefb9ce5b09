package dev.baton.azure;

import com.azure.core.http.rest.Response;
import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlobAcquireLeaseOptions;
import com.azure.storage.blob.options.BlobReleaseLeaseOptions;
import com.azure.storage.blob.options.BlobRenewLeaseOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlobLeaseAsyncClient;
import com.azure.storage.blob.specialized.BlobLeaseClientBuilder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Locks on Azure Blob leases: one blob per lock name ({@link AzureBlobNames}), whose lease is the
 * lock, and whose metadata carries the fencing counter.
 *
 * <ul>
 *   <li><b>Acquire</b>: Lease Blob {@code acquire} with a proposed lease id derived from the owner id
 *       (unique per acquisition) and a duration of the lease time in whole seconds. A missing blob is
 *       created first (an empty block blob, {@code If-None-Match: *}, so that racing creators are
 *       harmless), and a missing container too when the URI allows it. A lease held by another owner
 *       (409) means the lock is taken: waiters poll with the core's capped, jittered backoff; no
 *       notification exists.
 *   <li><b>Fencing token</b>: right after the lease is granted, the metadata counter {@value
 *       AzureBlobFence#TOKEN_KEY} is read and written back plus one, the write conditioned on the lease id and on
 *       {@code If-Match} of the ETag read (or of the ETag of this backend's own last write of the
 *       counter, which saves the read when nobody else took the lock since). Only the lease holder can write the blob, so tokens
 *       strictly increase across owners, processes and expiries. If the write fails, the attempt is
 *       not a grant: the lease is released and the lock reported taken (or the failure thrown). The
 *       same write records the grant's owner id and holder description (percent-encoded, {@link
 *       AzureBlobHolderText}), so describing the holder costs no request.
 *   <li><b>Renew / release</b>: Lease Blob {@code renew} / {@code release} with the grant's lease id;
 *       a lease id that is not the blob's current one never renews or releases anything (409).
 *   <li><b>Operators</b>: {@link #list} lists the container's blobs under the prefix with their
 *       metadata; {@link #forceRelease} breaks the lease with a break period of 0.
 * </ul>
 *
 * <p>Lease time: Azure's leases last 15 to 60 s (or forever, which Baton never uses: a crashed
 * holder's lock would never be freed). A lease time outside 15 s to 60 s is refused with a {@link
 * LockConfigurationException}, when the client is created and when a lock with its own options is
 * acquired. A fractional lease time is sent rounded up to the next second: the server then keeps the
 * lock at most a second longer than the holder counts on it, never shorter.
 *
 * <p>Expiry is the server's: a lease expires on Azure's clock; the holder's validity is counted from
 * when its request was sent, so it ends before the server's lease. An expired lease that nobody took
 * may still be renewed on Azure; the core nevertheless reports the lease lost once its validity has
 * passed (the gap was a time without ownership).
 *
 * <p>Only exclusive locks: a blob has one lease with one holder, so read locks ({@code
 * readWriteLock(name).readLock()}) throw {@link UnsupportedOperationException}.
 *
 * <p>Failures: every call is bounded by the operation timeout and retried inside it on throttling
 * (429, 503) and transport failures ({@link AzureBlobCalls}); what is left is a {@link
 * LockUnavailableException} naming the lock, the backend and the fix. Blobs stay after release (one
 * empty blob per lock name ever used, with its counter): deleting one would restart its tokens.
 */
public final class AzureBlobLockBackend implements LockBackend {
    /** Azure's shortest lease. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(15);
    /** Azure's longest lease that still expires. */
    public static final Duration MAX_LEASE = Duration.ofSeconds(60);

    private final String name;
    private final String prefix;
    private final boolean createContainer;
    private final BlobContainerAsyncClient container;
    private final AzureBlobCalls calls;
    private final AzureBlobFence fence;
    private final AzureBlobLockListing listing;
    private final AzureBlobLeaseBreaker breaker;
    private final AutoCloseable transport;
    private final AtomicBoolean closed = new AtomicBoolean();

    AzureBlobLockBackend(AzureBlobUri uri, AzureBlobTransport transport, Duration operationTimeout) {
        this.name = "azure-blob (" + uri.account() + "/" + uri.container() + ")";
        this.prefix = uri.prefix();
        this.createContainer = uri.createContainer();
        this.container = transport.container();
        this.calls = new AzureBlobCalls(name, uri, transport.endpoint(), operationTimeout, closed::get);
        this.fence = new AzureBlobFence(calls);
        this.listing = new AzureBlobLockListing(container, prefix, calls);
        this.breaker = new AzureBlobLeaseBreaker(calls);
        this.transport = transport;
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Refuses a lease time Azure cannot serve.
     *
     * @param lock the lock name, or null for a client's default options
     */
    static void checkLeaseTime(String backend, String lock, Duration leaseTime) {
        if (leaseTime.compareTo(MIN_LEASE) < 0 || leaseTime.compareTo(MAX_LEASE) > 0) {
            throw new LockConfigurationException((lock == null ? "Baton on " : "Baton lock '" + lock + "' on ")
                    + backend + ": leaseTime " + leaseTime + " is outside what Azure Blob leases allow, 15 s to 60 s;"
                    + " set LockOptions.leaseTime between 15s and 60s (a lease never shorter than 15 s is Azure's"
                    + " rule; infinite leases are not used, they would never free a crashed holder's lock)");
        }
    }

    static int leaseSeconds(Duration leaseTime) {
        long seconds = leaseTime.getSeconds() + (leaseTime.getNano() > 0 ? 1 : 0);
        return (int) seconds;
    }

    /** The lease id of an owner: its 128 random bits as a GUID, the form Azure wants. */
    static String leaseId(String ownerId) {
        return ownerId.substring(0, 8) + "-" + ownerId.substring(8, 12) + "-" + ownerId.substring(12, 16) + "-"
                + ownerId.substring(16, 20) + "-" + ownerId.substring(20, 32);
    }

    private BlobAsyncClient blob(String lock) {
        return container.getBlobAsyncClient(AzureBlobNames.blobName(prefix, lock));
    }

    private static BlobLeaseAsyncClient lease(BlobAsyncClient blob, String ownerId) {
        return new BlobLeaseClientBuilder()
                .blobAsyncClient(blob)
                .leaseId(leaseId(ownerId))
                .buildAsyncClient();
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        if (request.mode() != LockMode.EXCLUSIVE) {
            throw new UnsupportedOperationException("Baton lock '" + request.name() + "' on " + name
                    + ": read locks are not supported by the Azure Blob backend (a blob has one lease, held by one"
                    + " owner); use lock(name), or a backend with read/write locks (JDBC, Redis, ZooKeeper)");
        }
        checkLeaseTime(name, request.name(), request.leaseTime());
        int seconds = leaseSeconds(request.leaseTime());
        BlobAsyncClient blob = blob(request.name());
        Instant serverNow = acquireLease(request, blob, seconds);
        if (serverNow == null) {
            return Optional.empty();
        }
        long token;
        try {
            token = fence.advance(request, blob, seconds);
        } catch (RuntimeException e) {
            releaseQuietly(request.name(), request.ownerId(), e);
            throw e;
        }
        if (token < 0) {
            releaseQuietly(request.name(), request.ownerId(), null);
            return Optional.empty();
        }
        return Optional.of(Grant.builder(request.name(), request.ownerId(), LockMode.EXCLUSIVE)
                .fencingToken(token)
                .expiresAt(serverNow.plusSeconds(seconds))
                .build());
    }

    /** Takes the lease; the server's time of the grant, or null if another owner holds it. */
    private Instant acquireLease(LockRequest request, BlobAsyncClient blob, int seconds) {
        String lock = request.name();
        BlobLeaseAsyncClient lease = lease(blob, request.ownerId());
        for (int attempt = 1; ; attempt++) {
            try {
                Response<String> granted = calls.call(
                        lock,
                        "acquiring the lease",
                        () -> lease.acquireLeaseWithResponse(new BlobAcquireLeaseOptions(seconds)));
                return AzureBlobCalls.serverTime(granted);
            } catch (BlobStorageException e) {
                if (e.getStatusCode() == 409) {
                    return null; // LeaseAlreadyPresent, or a lease being broken: held by another owner
                }
                if (attempt < 3 && AzureBlobCalls.is(e, BlobErrorCode.BLOB_NOT_FOUND)) {
                    createBlob(lock, blob);
                } else if (attempt < 3 && createContainer && AzureBlobCalls.is(e, BlobErrorCode.CONTAINER_NOT_FOUND)) {
                    createContainer(lock);
                } else {
                    throw calls.failure(lock, "acquiring the lease", e);
                }
            }
        }
    }

    /** Creates the lock's empty blob unless it exists; a racing creator wins harmlessly. */
    private void createBlob(String lock, BlobAsyncClient blob) {
        BlockBlobSimpleUploadOptions upload = new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(new byte[0]))
                .setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*"));
        try {
            calls.call(lock, "creating the lock's blob", () -> blob.getBlockBlobAsyncClient()
                    .uploadWithResponse(upload));
        } catch (BlobStorageException e) {
            // 409 BlobAlreadyExists / 412 ConditionNotMet: another client created it first. A missing
            // container comes back from the next acquire attempt.
            if (e.getStatusCode() != 409 && e.getStatusCode() != 412 && e.getStatusCode() != 404) {
                throw calls.failure(lock, "creating the lock's blob", e);
            }
        }
    }

    private void createContainer(String lock) {
        try {
            calls.call(lock, "creating the container", () -> container.createWithResponse(null, null));
        } catch (BlobStorageException e) {
            if (e.getStatusCode() != 409) { // ContainerAlreadyExists: created meanwhile
                throw calls.failure(lock, "creating the container", e);
            }
        }
    }

    /**
     * The holder as the blob shows it ({@link AzureBlobLockListing#info}): held while its lease is
     * leased, with the owner id, token and holder description of the last grant. Azure does not tell
     * when a lease ends, so {@code expiresAt} is the latest it can: the server's time of this read plus
     * the lease time. Waiters are not counted (they poll; Azure keeps no queue).
     */
    @Override
    public Optional<LockInfo> inspect(String lock) {
        Response<BlobProperties> read;
        try {
            read = calls.call(lock, "reading the lock's blob", () -> blob(lock).getPropertiesWithResponse(null));
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 404) {
                return Optional.empty();
            }
            throw calls.failure(lock, "reading the lock's blob", e);
        }
        BlobProperties properties = read.getValue();
        return AzureBlobLockListing.info(
                lock, properties.getLeaseState(), properties.getMetadata(), AzureBlobCalls.serverTime(read));
    }

    /**
     * Lists the container's blobs under the prefix's encoding with their metadata (List Blobs with
     * {@code include=metadata}, page by page, each page bounded by the operation timeout), decodes
     * their names and keeps the leased ones whose name starts with {@code prefix}: one request per
     * 1,000 blobs ever used as locks under it, held or not. Every entry is a {@link
     * dev.baton.LockKind#MUTEX} (blob leases have no shared form and no semaphores) without a waiter
     * count (waiters poll).
     */
    @Override
    public List<LockInfo> list(String prefix) {
        return listing.list(prefix);
    }

    @Override
    public String listingMethod() {
        return listing.method();
    }

    /**
     * Breaks the lock's lease with a break period of 0 ({@link AzureBlobLeaseBreaker}): free at once;
     * the broken holder's next renewal fails (a broken lease cannot be renewed), so it is reported
     * lost within a third of its lease time; the next holder's token is above the broken one's.
     */
    @Override
    public List<LockInfo> forceRelease(String lock, String ownerId) {
        return breaker.breakLease(lock, blob(lock), ownerId);
    }

    /**
     * Azure renews a blob lease only for the duration it was acquired with, so an extension is at
     * least Azure's 15 s and at most the acquired lease's whole seconds (an extension shorter than
     * that is counted as asked by the holder while the blob stays leased for the acquired duration).
     */
    @Override
    public void checkExtension(String lock, Duration leaseTime, Duration extension) {
        int acquired = leaseSeconds(leaseTime);
        if (extension.compareTo(MIN_LEASE) < 0 || extension.compareTo(Duration.ofSeconds(acquired)) > 0) {
            throw new LockConfigurationException("Baton lock '" + lock + "' on " + name + ": cannot extend by "
                    + extension + "; an Azure Blob lease is renewed only for the duration it was acquired with ("
                    + acquired + " s), so extend by 15s to " + acquired + "s, or acquire with a longer"
                    + " LockOptions.leaseTime (at most 60s)");
        }
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        try {
            Response<String> renewed =
                    calls.call(grant.name(), "renewing the lease", () -> lease(blob(grant.name()), grant.ownerId())
                            .renewLeaseWithResponse(new BlobRenewLeaseOptions()));
            return Optional.of(
                    grant.withExpiresAt(AzureBlobCalls.serverTime(renewed).plusSeconds(leaseSeconds(leaseTime))));
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 409 || e.getStatusCode() == 404 || e.getStatusCode() == 412) {
                return Optional.empty(); // another lease id, no lease, broken, or no blob: not ours any more
            }
            throw calls.failure(grant.name(), "renewing the lease", e);
        }
    }

    @Override
    public boolean release(Grant grant) {
        AtomicBoolean unanswered = new AtomicBoolean();
        try {
            calls.call(
                    grant.name(),
                    "releasing the lease",
                    () -> lease(blob(grant.name()), grant.ownerId())
                            .releaseLeaseWithResponse(new BlobReleaseLeaseOptions()),
                    unanswered);
            return true;
        } catch (BlobStorageException e) {
            if (unanswered.get() && AzureBlobCalls.is(e, BlobErrorCode.LEASE_NOT_PRESENT_WITH_LEASE_OPERATION)) {
                return true; // an earlier attempt released it and its answer was lost
            }
            if (e.getStatusCode() == 409 || e.getStatusCode() == 404 || e.getStatusCode() == 412) {
                return false; // not our lease (any more): nothing of another owner is touched
            }
            throw calls.failure(grant.name(), "releasing the lease", e);
        }
    }

    @Override
    public void abandon(LockRequest request) {
        if (request.mode() == LockMode.EXCLUSIVE
                && request.leaseTime().compareTo(MIN_LEASE) >= 0
                && request.leaseTime().compareTo(MAX_LEASE) <= 0) {
            release(Grant.of(request, 0, Instant.EPOCH));
        }
    }

    private void releaseQuietly(String lock, String ownerId, RuntimeException failure) {
        try {
            release(Grant.builder(lock, ownerId, LockMode.EXCLUSIVE)
                    .fencingToken(0)
                    .expiresAt(Instant.EPOCH)
                    .build());
        } catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            transport.close();
        } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(AzureBlobLockBackend.class)
                    .warn("{}: closing the HTTP client failed: {}", name, e.toString());
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
