package dev.baton.azure;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.rest.Response;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import dev.baton.LockUnavailableException;
import dev.baton.spi.LockRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fencing counter of a lock blob: a metadata value ({@value #TOKEN_KEY}) that the lease holder
 * advances on every grant with a write conditioned on its lease id and {@code If-Match} of the ETag
 * it knows, so that tokens strictly increase across owners, processes and expiries (only the holder
 * of the active lease may write the blob). The owner id, lease seconds and holder description
 * ({@link AzureBlobHolderText}) of the grant ride along in the same write, for {@link
 * AzureBlobLockBackend#inspect} and {@link AzureBlobLockBackend#list}: no request of their own.
 *
 * <p>The ETag of this backend's own last write per lock is remembered (at most {@value
 * #MAX_REMEMBERED} locks): the next grant writes {@code If-Match} it directly, and only when another
 * client wrote since ({@code 412 ConditionNotMet}) reads the counter first.
 */
final class AzureBlobFence {
    /** Metadata key of the fencing counter. */
    static final String TOKEN_KEY = "batonfence";
    /** Metadata key of the current grant's owner id. */
    static final String OWNER_KEY = "batonowner";
    /** Metadata key of the current grant's lease seconds. */
    static final String LEASE_KEY = "batonlease";
    /** Metadata key of the current grant's holder description ({@link AzureBlobHolderText}). */
    static final String HOLDER_KEY = "batonholder";

    private static final int MAX_REMEMBERED = 10_000;

    private final AzureBlobCalls calls;
    /** Fences written last per lock name, to skip the read on the next grant. */
    private final Map<String, Fence> fences = new ConcurrentHashMap<>();

    AzureBlobFence(AzureBlobCalls calls) {
        this.calls = calls;
    }

    /**
     * Advances the fencing counter under the lease just taken. The counter and ETag this backend
     * wrote last for the lock are tried first ({@code If-Match} on that ETag proves nobody wrote
     * since, so the counter is current): one round trip instead of a read and a write.
     *
     * @return the new token, or -1 if the write was refused (the lease was lost or the blob changed)
     */
    long advance(LockRequest request, BlobAsyncClient blob, int seconds) {
        String lock = request.name();
        String leaseId = AzureBlobLockBackend.leaseId(request.ownerId());
        Fence known = fences.get(lock);
        if (known != null) {
            long written = write(request, blob, seconds, known);
            if (written != 0) {
                return written;
            }
        }
        BlobProperties properties;
        try {
            properties = calls.call(
                            lock,
                            "reading the fencing counter",
                            () -> blob.getPropertiesWithResponse(new BlobRequestConditions().setLeaseId(leaseId)))
                    .getValue();
        } catch (BlobStorageException e) {
            if (e.getStatusCode() == 412 || e.getStatusCode() == 409 || e.getStatusCode() == 404) {
                return -1;
            }
            throw calls.failure(lock, "reading the fencing counter", e);
        }
        Fence read = new Fence(
                counter(lock, properties.getMetadata().get(TOKEN_KEY)), properties.getETag(), properties.getMetadata());
        long written = write(request, blob, seconds, read);
        return written == 0 ? -1 : written;
    }

    /**
     * Writes {@code fence}'s counter plus one, if the blob's ETag is still {@code fence}'s.
     *
     * @return the new token; 0 if the ETag has changed (someone wrote since); -1 if the lease is gone
     */
    private long write(LockRequest request, BlobAsyncClient blob, int seconds, Fence fence) {
        String lock = request.name();
        long next = fence.token() + 1;
        Map<String, String> metadata = new HashMap<>(fence.metadata());
        metadata.put(TOKEN_KEY, Long.toString(next));
        metadata.put(OWNER_KEY, request.ownerId());
        metadata.put(LEASE_KEY, Integer.toString(seconds));
        if (request.holder().isEmpty()) {
            metadata.remove(HOLDER_KEY); // never leave the previous holder's description beside this owner
        } else {
            metadata.put(HOLDER_KEY, AzureBlobHolderText.encode(request.holder()));
        }
        BlobRequestConditions guard = new BlobRequestConditions()
                .setLeaseId(AzureBlobLockBackend.leaseId(request.ownerId()))
                .setIfMatch(fence.etag());
        try {
            Response<Void> written =
                    calls.call(lock, "writing the fencing token", () -> blob.setMetadataWithResponse(metadata, guard));
            remember(lock, new Fence(next, written.getHeaders().getValue(HttpHeaderName.ETAG), metadata));
            return next;
        } catch (BlobStorageException e) {
            fences.remove(lock);
            if (AzureBlobCalls.is(e, BlobErrorCode.CONDITION_NOT_MET)) {
                return 0;
            }
            if (e.getStatusCode() == 412 || e.getStatusCode() == 409 || e.getStatusCode() == 404) {
                return -1;
            }
            throw calls.failure(lock, "writing the fencing token", e);
        }
    }

    private void remember(String lock, Fence fence) {
        if (fence.etag() == null) {
            return;
        }
        if (fences.size() >= MAX_REMEMBERED) {
            fences.clear(); // a cache: losing it costs one read per lock
        }
        fences.put(lock, fence);
    }

    /**
     * The counter and ETag this backend wrote last on a lock's blob, and the blob's other metadata.
     * Baton's own keys are not kept: the next write sets them anew, and a client that holds many
     * locks would keep their values (the owner id among them) for every one.
     */
    private record Fence(long token, String etag, Map<String, String> metadata) {
        Fence {
            Map<String, String> others = new HashMap<>(metadata);
            others.keySet().removeAll(List.of(TOKEN_KEY, OWNER_KEY, LEASE_KEY, HOLDER_KEY));
            metadata = Map.copyOf(others);
        }
    }

    long counter(String lock, String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new LockUnavailableException(
                    calls.prefix(lock) + "the lock blob's metadata " + TOKEN_KEY + "='"
                            + value + "' is not a number, so no fencing token can follow it; something other than Baton"
                            + " wrote it: set it to a number at least as high as the highest token handed out",
                    e);
        }
    }
}
