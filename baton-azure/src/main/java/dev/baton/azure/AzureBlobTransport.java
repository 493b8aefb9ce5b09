package dev.baton.azure;

import com.azure.core.http.HttpClient;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.baton.LockConfigurationException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.netty.resources.ConnectionProvider;

/**
 * The HTTP side of one backend: its own Netty event loop (two daemon threads named {@code
 * baton-azure-io-N}) and connection pool, so that closing the backend ends every thread and
 * connection it started (the SDK's default client shares JVM-wide ones that nobody closes). The
 * SDK's retries are off: {@link AzureBlobCalls} retries within the operation timeout.
 */
final class AzureBlobTransport implements AutoCloseable {
    private static final AtomicInteger COUNT = new AtomicInteger();
    /** Connections per backend: renewals (16 in flight per client) plus acquisitions. */
    private static final int MAX_CONNECTIONS = 64;

    private final EventLoopGroup loop;
    private final ConnectionProvider pool;
    private final BlobContainerAsyncClient container;
    private final String endpoint;

    AzureBlobTransport(AzureBlobUri uri, Duration timeout) {
        int id = COUNT.incrementAndGet();
        this.loop = new NioEventLoopGroup(2, new DefaultThreadFactory("baton-azure-io-" + id, true));
        this.pool = ConnectionProvider.builder("baton-azure-" + id)
                .maxConnections(MAX_CONNECTIONS)
                .pendingAcquireTimeout(timeout)
                .maxIdleTime(Duration.ofSeconds(30))
                .build();
        try {
            HttpClient http = new NettyAsyncHttpClientBuilder()
                    .eventLoopGroup(loop)
                    .connectionProvider(pool)
                    .connectTimeout(timeout)
                    .responseTimeout(timeout)
                    .readTimeout(timeout)
                    .writeTimeout(timeout)
                    .build();
            BlobServiceClientBuilder builder = new BlobServiceClientBuilder()
                    .httpClient(http)
                    .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Integer) null, null, null, null));
            AzureBlobUri.Credential credential = uri.credential();
            if (credential instanceof AzureBlobUri.Credential.SharedKey key) {
                builder.endpoint(uri.endpoint()).credential(new StorageSharedKeyCredential(uri.account(), key.key()));
            } else if (credential instanceof AzureBlobUri.Credential.Sas sas) {
                builder.endpoint(uri.endpoint()).sasToken(sas.token());
            } else if (credential instanceof AzureBlobUri.Credential.ConnectionString connection) {
                builder.connectionString(connection.value());
                if (uri.endpointGiven()) {
                    builder.endpoint(uri.endpoint());
                }
            }
            BlobServiceAsyncClient service = builder.buildAsyncClient();
            if (!uri.account().equals(service.getAccountName())) {
                throw new LockConfigurationException("Baton Azure Blob: the URI names account '" + uri.account()
                        + "' but the credentials (" + uri.credential().source() + ") are for account '"
                        + service.getAccountName() + "'; make them agree");
            }
            this.container = service.getBlobContainerAsyncClient(uri.container());
            this.endpoint = service.getAccountUrl();
        } catch (IllegalArgumentException e) {
            close();
            throw new LockConfigurationException(
                    "Baton Azure Blob: the credentials from " + uri.credential().source() + " or the endpoint "
                            + uri.endpoint() + " are not usable: " + e.getMessage(),
                    e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    BlobContainerAsyncClient container() {
        return container;
    }

    /** The blob service endpoint requests go to. */
    String endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        pool.dispose();
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
