package dev.baton.azure;

import com.azure.core.http.rest.Response;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.models.BlobLeaseRequestConditions;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlobBreakLeaseOptions;
import com.azure.storage.blob.specialized.BlobLeaseClientBuilder;
import dev.baton.LockInfo;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Forced release on blob leases ({@link AzureBlobLockBackend#forceRelease}): the lock's blob is read
 * (lease state and the holder its metadata names), and if the holder asked for holds it, its lease is
 * broken with a break period of 0 (Lease Blob {@code break}), conditioned on {@code If-Match} of the
 * ETag read, so that a holder who took the lock after the read (and wrote its metadata) is not
 * broken in the other one's name: the blob is then read again.
 *
 * <p>What follows is Azure's lease state machine: a broken lease can be neither renewed nor released
 * with its lease id (409), so the broken holder's next renewal says the grant is gone and the core
 * reports it lost (renewal runs at a third of the lease time, so within one lease time), and its own
 * release afterwards touches nothing. The lock is free at once (a broken lease can be acquired), and
 * the next holder's token is the blob's counter plus one, written under its new lease with {@code
 * If-Match}: above the broken holder's, whose token was that counter. A holder whose lease was taken
 * but whose counter write had not landed when the lease was broken never got a grant: its write,
 * conditioned on its lease id, fails and its attempt reports the lock taken. Nothing to wake: waiters
 * poll.
 */
final class AzureBlobLeaseBreaker {
    private static final int ATTEMPTS = 3;

    private final AzureBlobCalls calls;

    AzureBlobLeaseBreaker(AzureBlobCalls calls) {
        this.calls = calls;
    }

    /** Breaks the lease of {@code blob} if it is held (by {@code ownerId}, unless null); what was broken. */
    List<LockInfo> breakLease(String lock, BlobAsyncClient blob, String ownerId) {
        for (int attempt = 1; ; attempt++) {
            Response<BlobProperties> read;
            try {
                read = calls.call(lock, "reading the lock's blob", () -> blob.getPropertiesWithResponse(null));
            } catch (BlobStorageException e) {
                if (e.getStatusCode() == 404) {
                    return List.of();
                }
                throw calls.failure(lock, "reading the lock's blob", e);
            }
            BlobProperties properties = read.getValue();
            Optional<LockInfo> held = AzureBlobLockListing.info(
                    lock, properties.getLeaseState(), properties.getMetadata(), AzureBlobCalls.serverTime(read));
            if (held.isEmpty() || (ownerId != null && !held.get().owners().contains(ownerId))) {
                return List.of();
            }
            BlobBreakLeaseOptions options = new BlobBreakLeaseOptions()
                    .setBreakPeriod(Duration.ZERO)
                    .setRequestConditions(new BlobLeaseRequestConditions().setIfMatch(properties.getETag()));
            try {
                calls.call(lock, "breaking the lease", () -> new BlobLeaseClientBuilder()
                        .blobAsyncClient(blob)
                        .buildAsyncClient()
                        .breakLeaseWithResponse(options));
                return List.of(held.get());
            } catch (BlobStorageException e) {
                if (e.getStatusCode() == 409 || e.getStatusCode() == 404) {
                    return List.of(); // no lease any more: released (or the blob deleted) since the read
                }
                if (e.getStatusCode() != 412) {
                    throw calls.failure(lock, "breaking the lease", e);
                }
                if (attempt == ATTEMPTS) {
                    throw new LockUnavailableException(
                            calls.prefix(lock) + "breaking the lease failed: the lock changed hands between reading"
                                    + " its holder and breaking its lease " + ATTEMPTS + " times in a row; try again",
                            e);
                }
                // 412: the blob was written since the read (a new holder's counter): read it again
            }
        }
    }
}
