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

    /**
     * A short name for reports.
     *
     * @return for example {@code jdbc-table on PostgreSQL}
     */
    String name();

    /**
     * The backend's URI.
     *
     * @return a URI that {@link Baton#connect(String, LockOptions)} accepts, usable from other JVMs
     *     too
     */
    String uri();

    /**
     * The server's address, so that the kit can put a fault-injecting proxy in front of it.
     *
     * @return the host and port the URI reaches
     */
    InetSocketAddress serverAddress();

    /**
     * The same backend reached through another address (the kit's proxy). The default replaces the
     * first {@code host:port} of {@link #uri()} that matches {@link #serverAddress()}.
     *
     * @param address the address to reach the server through
     * @return the URI with the server's address replaced by {@code address}
     * @throws IllegalStateException if the URI does not contain the server's address; override the
     *     method then
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

    /**
     * Connects a client; the kit closes it.
     *
     * @param options the client's options
     * @return a new client of this backend; the default connects to {@link #uri()}
     */
    default LockClient connect(LockOptions options) {
        return Baton.connect(uri(), options);
    }

    /**
     * What this backend claims to honour beyond the core contract.
     *
     * @return the capabilities the kit holds the backend to; for some that are not claimed (shared
     *     mode, say) the kit checks that the feature is refused instead
     *
     */
    Set<Capability> capabilities();

    /**
     * The shortest lease time the backend accepts, when it has one: Azure Blob leases last 15 to 60
     * s. The kit then runs every test whose lease is shorter with this one instead, and lengthens the
     * test's time bounds with it ({@link LockBackendContract#lease(Duration)}); it checks that a
     * shorter lease is refused with a {@link dev.baton.LockConfigurationException} that names the
     * option. Default: none ({@link Duration#ZERO}).
     *
     * @return the shortest lease time the backend accepts, or {@link Duration#ZERO} for no minimum
     *
     * <p>Such a backend's kit run takes several of these lease times; a test class may let JUnit run
     * the kit's tests in parallel (they keep no shared state, and the one that counts the JVM's
     * threads runs alone, by a resource lock of the kit).
     */
    default Duration minimumLeaseTime() {
        return Duration.ZERO;
    }

    /**
     * How long after its holder died a lock held with {@code lease} is free again on this backend:
     * the lease by default. A backend whose grants end with the holder's session rather than a lease
     * (ZooKeeper: the session timeout) returns the later of the two. The kit's take-over bounds (a
     * killed leader's successor) are this plus {@link KitTime#TAKE_OVER}.
     *
     * @param lease the lease time the holder asked for
     * @return the longest time from the holder's death to the backend freeing its lock
     */
    default Duration freedAfter(Duration lease) {
        return lease;
    }

    /**
     * How many leases one client of this backend can hold at once, when that is bounded by more than
     * the server's memory: a pinned JDBC strategy keeps one pooled connection per held lease. The kit
     * holds at most this many in its renewal-at-scale tests (and a few hundred otherwise). Default:
     * no such bound.
     *
     * @return the most leases one client can hold at once, or {@link Integer#MAX_VALUE}
     */
    default int heldLeaseLimit() {
        return Integer.MAX_VALUE;
    }

    /**
     * Whether {@code thread} belongs to a server that this fixture runs inside the test JVM (an
     * embedded ZooKeeper, say) rather than to a client. Such servers start threads on demand at any
     * time, so the kit's check that a closed client leaves no thread behind skips them. Default:
     * none (the server runs in its own process).
     *
     * @param thread a live thread of this JVM
     * @return {@code true} if the thread belongs to an embedded server
     */
    default boolean isServerThread(Thread thread) {
        return false;
    }

    /**
     * What the server can tell, at the moment a kit test failed, about its sessions and the locks
     * they hold or wait for: the kit adds it to the failure's report (a suppressed exception of the
     * failure), so that a timeout found on a busy machine says who waited for whom. It runs once per
     * failed test, on the test's thread, right after the failure and before any clean-up. Default:
     * nothing.
     *
     * @return a few lines of text, or an empty string when there is nothing to tell; an
     *     implementation answers within a few seconds and reports its own failure in the text
     *     instead of throwing
     */
    default String serverState() {
        return "";
    }

    /**
     * A fixture for a server that is reached by URI. The suppliers are read on every call, so a
     * fixture may be created before its server starts.
     *
     * @param name a short name for reports
     * @param uri supplies the backend's URI
     * @param serverAddress supplies the server's host and port, contained in the URI
     * @param capabilities what the backend claims beyond the core contract
     * @return a fixture that connects with {@link Baton#connect(String, LockOptions)}
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
