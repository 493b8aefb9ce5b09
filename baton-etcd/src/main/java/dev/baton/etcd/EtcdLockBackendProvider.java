package dev.baton.etcd;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockBackendProvider;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Builds the etcd lock backend for {@code etcd://} and {@code etcds://} URIs; found by {@link
 * dev.baton.Baton#connect(String, LockOptions)} through {@link java.util.ServiceLoader}.
 *
 * <pre>
 * etcd[s]://[user:password@]host[:2379][,host[:2379]...][/namespace][?tls=true&amp;ca=ca.pem
 *     &amp;cert=client.pem&amp;key=client-key.pem&amp;root=/baton/locks]
 * </pre>
 *
 * <ul>
 *   <li>Every member given is used (the client balances over them and skips one that is down).
 *   <li>{@code etcds://} or {@code tls=true}: TLS, trusting {@code ca} (PEM) or the JDK's default
 *       trust store; {@code cert} and {@code key} (PEM, PKCS#8) add a client certificate.
 *   <li>Credentials authenticate with etcd's user/password authentication.
 *   <li>The path is a namespace: every key Baton touches starts with it, e.g. {@code
 *       etcd://host:2379/billing} puts the locks under {@code /billing/baton/locks/}.
 *   <li>{@code root} (default {@code /baton/locks}): the parent of every lock's keys, inside the
 *       namespace.
 * </ul>
 *
 * <p>{@link #create} does no I/O: the connection is made on first use, and an unreachable cluster
 * shows up as {@link dev.baton.LockUnavailableException} then, within the operation timeout.
 */
public final class EtcdLockBackendProvider implements LockBackendProvider {

    /** Used by {@link java.util.ServiceLoader}. */
    public EtcdLockBackendProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of(EtcdUri.SCHEME, EtcdUri.TLS_SCHEME);
    }

    /**
     * Builds the backend; connects lazily.
     *
     * @throws LockConfigurationException for a malformed URI, an unknown parameter, or a TLS file
     *     that cannot be read
     */
    @Override
    public LockBackend create(String uri, LockOptions options) {
        EtcdUri parsed = EtcdUri.parse(uri);
        Duration timeout = options.operationTimeout();
        String scheme = parsed.tls() ? "https://" : "http://";
        ClientBuilder builder = Client.builder()
                .endpoints(parsed.endpoints().stream().map(e -> scheme + e).toArray(String[]::new))
                // The client's own I/O threads (a Vert.x instance of its own), stopped by close():
                // no callback of this backend blocks, so running them on the event loop is safe.
                .useVertx()
                .connectTimeout(timeout)
                // Fail at once while no member can be reached (Baton retries until the operation
                // timeout, then says which), instead of waiting silently for a connection.
                .waitForReady(false)
                // A member without a leader answers "no leader" at once instead of holding the
                // request until it times out inside the cluster: the error then says "no quorum".
                .header("hasleader", "true")
                // Baton retries within the operation timeout itself (every request it sends is
                // idempotent); jetcd's own retries would only add their pauses on top.
                .retryMaxAttempts(0)
                .interceptor(new UnaryDeadline(timeout));
        if (!parsed.namespace().isEmpty()) {
            builder.namespace(ByteSequence.from(parsed.namespace(), StandardCharsets.UTF_8));
        }
        if (parsed.user() != null) {
            builder.user(ByteSequence.from(parsed.user(), StandardCharsets.UTF_8))
                    .password(ByteSequence.from(parsed.password(), StandardCharsets.UTF_8));
        }
        if (parsed.tls()) {
            try {
                builder.sslContext(ssl -> {
                    if (parsed.ca() != null) {
                        ssl.trustManager(parsed.ca().toFile());
                    }
                    if (parsed.cert() != null) {
                        ssl.keyManager(parsed.cert().toFile(), parsed.key().toFile());
                    }
                });
            } catch (SSLException | IllegalArgumentException e) {
                throw new LockConfigurationException("Baton etcd backend: cannot use the TLS files of '"
                        + EtcdUri.redact(uri) + "': " + e.getMessage()
                        + "; give PEM files (ca: certificates, cert: a certificate chain, key: a PKCS#8 key)");
            }
        }
        return new EtcdLockBackend(parsed, new EtcdCalls(parsed, builder.build(), timeout));
    }

    /**
     * Puts a deadline of one operation timeout on every unary call that has none, so that a call on
     * a connection that stopped answering ends on the server's side too. Streams (watches,
     * keep-alives) have none: a waiter's watch lasts as long as its wait.
     */
    private static final class UnaryDeadline implements ClientInterceptor {
        private final long timeoutNanos;

        UnaryDeadline(Duration timeout) {
            this.timeoutNanos = timeout.toNanos();
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            if (method.getType() == MethodDescriptor.MethodType.UNARY && options.getDeadline() == null) {
                return next.newCall(method, options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS));
            }
            return next.newCall(method, options);
        }
    }
}
