package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;

/**
 * How the conformance kit reaches one backend configuration: a real server the fixture started (or
 * an external one), its URI and the capabilities it claims. One fixture serves a whole test class.
 */
public interface LockBackendFixture {

    /** A short name for reports, e.g. {@code jdbc-table on PostgreSQL}. */
    String name();

    /** A URI that {@link Baton#connect(String, LockOptions)} accepts, usable from other JVMs too. */
    String uri();

    /** The server's address, so that the kit can put a fault-injecting proxy in front of it. */
    InetSocketAddress serverAddress();

    /**
     * The same backend reached through another address (the kit's proxy). The default replaces the
     * first {@code host:port} of {@link #uri()} that matches {@link #serverAddress()}.
     */
    default String uriVia(InetSocketAddress address) {
        InetSocketAddress server = serverAddress();
        String target = server.getHostString() + ":" + server.getPort();
        String uri = uri();
        if (!uri.contains(target)) {
            throw new IllegalStateException("URI " + uri + " does not contain " + target + "; override uriVia");
        }
        return uri.replaceFirst(
                java.util.regex.Pattern.quote(target), address.getHostString() + ":" + address.getPort());
    }

    /** Connects a client; the kit closes it. */
    default LockClient connect(LockOptions options) {
        return Baton.connect(uri(), options);
    }

    /** What this backend claims to honour beyond the core contract. */
    Set<Capability> capabilities();

    /**
     * The shortest lease time the backend accepts, when it has one: Azure Blob leases last 15 to 60
     * s. The kit then runs every test whose lease is shorter with this one instead, and lengthens the
     * test's time bounds with it ({@link LockBackendContract#lease(Duration)}); it checks that a
     * shorter lease is refused with a {@link dev.baton.LockConfigurationException} that names the
     * option. Default: none ({@link Duration#ZERO}).
     *
     * <p>Such a backend's kit run takes several of these lease times; a test class may let JUnit run
     * the kit's tests in parallel (they keep no shared state, and the one that counts the JVM's
     * threads runs alone, by a resource lock of the kit).
     */
    default Duration minimumLeaseTime() {
        return Duration.ZERO;
    }

    /**
     * How many leases one client of this backend can hold at once, when that is bounded by more than
     * the server's memory: a pinned JDBC strategy keeps one pooled connection per held lease. The kit
     * holds at most this many in its renewal-at-scale tests (and a few hundred otherwise). Default:
     * no such bound.
     */
    default int heldLeaseLimit() {
        return Integer.MAX_VALUE;
    }

    /**
     * Whether {@code thread} belongs to a server that this fixture runs inside the test JVM (an
     * embedded ZooKeeper, say) rather than to a client. Such servers start threads on demand at any
     * time, so the kit's check that a closed client leaves no thread behind skips them. Default:
     * none (the server runs in its own process).
     */
    default boolean isServerThread(Thread thread) {
        return false;
    }

    /**
     * A fixture for a server that is reached by URI. The suppliers are read on every call, so a
     * fixture may be created before its server starts.
     */
    static LockBackendFixture of(
            String name,
            java.util.function.Supplier<String> uri,
            java.util.function.Supplier<InetSocketAddress> serverAddress,
            Set<Capability> capabilities) {
        return new LockBackendFixture() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String uri() {
                return uri.get();
            }

            @Override
            public InetSocketAddress serverAddress() {
                return serverAddress.get();
            }

            @Override
            public Set<Capability> capabilities() {
                return capabilities;
            }
        };
    }
}
