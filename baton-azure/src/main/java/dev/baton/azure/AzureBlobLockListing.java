package dev.baton.azure;

import com.azure.core.http.rest.PagedResponse;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.LeaseStateType;
import com.azure.storage.blob.models.ListBlobsOptions;
import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Held locks as their blobs show them, for {@link AzureBlobLockBackend#inspect} and {@link
 * AzureBlobLockBackend#list}: a lock is held while its blob's lease state is {@code leased} (or
 * {@code breaking}: nobody else can take it until the break period ends); {@code available}, {@code
 * expired} and {@code broken} leases are free. The holder is the one the blob's metadata names
 * ({@link AzureBlobFence}): owner id, fencing token, holder description and lease seconds of the last
 * grant. Azure does not say when a lease ends, so the expiry reported is the latest it can be: the
 * server's time of the read plus the grant's lease seconds.
 *
 * <p>A lease taken by a new owner whose metadata write has not landed yet shows the previous grant's
 * holder for that moment (the lease and the metadata are two requests); a blob leased by something
 * other than Baton shows an owner {@value #FOREIGN_OWNER}. Nothing read here ever fails on foreign
 * metadata: a missing description is {@code ""}, an unreadable counter is reported as token -1.
 */
final class AzureBlobLockListing {
    static final String FOREIGN_OWNER = "unknown (not written by Baton)";

    /** Blobs per listing page; Azure allows up to 5,000. */
    private static final int PAGE = 1_000;

    private final BlobContainerAsyncClient container;
    private final String prefix;
    private final AzureBlobCalls calls;

    AzureBlobLockListing(BlobContainerAsyncClient container, String prefix, AzureBlobCalls calls) {
        this.container = container;
        this.prefix = prefix;
        this.calls = calls;
    }

    /**
     * Lists the container's blobs under the encoded prefix ({@link AzureBlobNames#listPrefix}) with
     * their metadata, page by page (each page one request bounded by the operation timeout), and keeps
     * the leased ones whose decoded name starts with {@code lockPrefix}.
     */
    List<LockInfo> list(String lockPrefix) {
        ListBlobsOptions options = new ListBlobsOptions()
                .setPrefix(AzureBlobNames.listPrefix(prefix, lockPrefix))
                .setDetails(new BlobListDetails().setRetrieveMetadata(true))
                .setMaxResultsPerPage(PAGE);
        List<LockInfo> held = new ArrayList<>();
        String continuation = null;
        do {
            String from = continuation;
            PagedResponse<BlobItem> page;
            try {
                page = calls.call(null, "listing the container's lock blobs", () -> (from == null
                                ? container.listBlobs(options).byPage()
                                : container.listBlobs(options).byPage(from))
                        .next());
            } catch (BlobStorageException e) {
                if (AzureBlobCalls.is(e, BlobErrorCode.CONTAINER_NOT_FOUND)) {
                    return List.of(); // no container: no lock was ever taken here
                }
                throw calls.failure(null, "listing the container's lock blobs", e);
            }
            if (page == null) {
                break;
            }
            Instant serverNow = AzureBlobCalls.serverTime(page);
            for (BlobItem item : page.getValue()) {
                String lock = AzureBlobNames.lockNameOrNull(prefix, item.getName());
                if (lock == null || !lock.startsWith(lockPrefix) || item.getProperties() == null) {
                    continue;
                }
                info(lock, item.getProperties().getLeaseState(), item.getMetadata(), serverNow)
                        .ifPresent(held::add);
            }
            continuation = page.getContinuationToken();
        } while (continuation != null && !continuation.isEmpty());
        held.sort(Comparator.comparing(LockInfo::name));
        return held;
    }

    /** How {@link #list} finds the locks, for {@code baton locks}. */
    String method() {
        return "lists the container's blobs under " + prefix + " with their metadata, " + PAGE
                + " per page (List Blobs), and shows the leased ones";
    }

    /** The lock a blob in {@code state} with {@code metadata} shows, or empty if its lease is not held. */
    static Optional<LockInfo> info(String lock, LeaseStateType state, Map<String, String> metadata, Instant serverNow) {
        if (state != LeaseStateType.LEASED && state != LeaseStateType.BREAKING) {
            return Optional.empty();
        }
        Map<String, String> written = metadata == null ? Map.of() : metadata;
        Holder holder = Holder.of(
                written.getOrDefault(AzureBlobFence.OWNER_KEY, FOREIGN_OWNER),
                AzureBlobHolderText.decode(written.get(AzureBlobFence.HOLDER_KEY)),
                number(written.get(AzureBlobFence.TOKEN_KEY), 0, -1),
                serverNow.plusSeconds(leaseSeconds(written.get(AzureBlobFence.LEASE_KEY))));
        return Optional.of(LockInfo.of(lock, LockKind.MUTEX, List.of(holder)));
    }

    /** The grant's lease seconds, within Azure's range; Azure's longest when unknown. */
    private static long leaseSeconds(String value) {
        long longest = AzureBlobLockBackend.MAX_LEASE.getSeconds();
        long seconds = number(value, longest, longest);
        return seconds < 0 || seconds > longest ? longest : seconds;
    }

    private static long number(String value, long missing, long unreadable) {
        if (value == null) {
            return missing;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return unreadable;
        }
    }
}
