package dev.baton.azure;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import java.util.Map;
import java.util.Set;

/**
 * Serves {@code azblob://} URIs ({@link AzureBlobUri} lists the parameters and where credentials come
 * from):
 *
 * <pre>
 * azblob://account/container?accountKey=...                          Azure, shared key
 * azblob://account/container?sas=sv%3D...%26sig%3D...                Azure, SAS token (percent-encoded)
 * azblob://account/container                                         credentials from AZURE_STORAGE_* variables
 * azblob://devstoreaccount1/locks?endpoint=http://127.0.0.1:10000/devstoreaccount1&amp;accountKey=...   Azurite
 * </pre>
 *
 * <p>Creating a backend does no I/O. It fails at once with {@link LockConfigurationException} for a
 * malformed URI, missing credentials, or a lease time outside Azure's 15 s to 60 s.
 */
public final class AzureBlobLockBackendProvider implements LockBackendProvider {

    @Override
    public Set<String> schemes() {
        return Set.of(AzureBlobUri.SCHEME);
    }

    @Override
    public LockBackend create(String uri, LockOptions options) {
        return create(uri, options, System.getenv());
    }

    static AzureBlobLockBackend create(String uri, LockOptions options, Map<String, String> env) {
        if (uri == null || options == null) {
            throw new LockConfigurationException("Baton Azure Blob: the URI and the options must not be null");
        }
        AzureBlobUri parsed = AzureBlobUri.parse(uri, env);
        AzureBlobLockBackend.checkLeaseTime(
                "azure-blob (" + parsed.account() + "/" + parsed.container() + ")", null, options.leaseTime());
        AzureBlobTransport transport = new AzureBlobTransport(parsed, options.operationTimeout());
        return new AzureBlobLockBackend(parsed, transport, options.operationTimeout());
    }
}
