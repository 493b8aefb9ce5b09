package dev.baton.jdbc;

import dev.baton.servers.DatabaseServer;
import dev.baton.tck.Capability;
import dev.baton.tck.LockBackendFixture;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.Supplier;

/** Kit fixtures for a database server and a strategy: the one place test URIs are built. */
final class JdbcFixtures {
    private JdbcFixtures() {}

    /**
     * A fixture reaching {@code server} (read on every call, so it may start later) with {@code
     * strategy}, or the default strategy when it is null, claiming shared mode, semaphores and fair
     * hand-off.
     */
    static LockBackendFixture of(String name, Supplier<? extends DatabaseServer> server, String strategy) {
        return of(name, server, strategy, Set.of(Capability.SHARED_MODE, Capability.SEMAPHORES, Capability.FAIR));
    }

    /** The same with the capabilities the pair claims (the kit checks that the others are refused). */
    static LockBackendFixture of(
            String name, Supplier<? extends DatabaseServer> server, String strategy, Set<Capability> capabilities) {
        LockBackendFixture fixture = LockBackendFixture.of(
                name,
                () -> uri(server.get(), strategy),
                () -> new InetSocketAddress(server.get().host(), server.get().port()),
                capabilities);
        if (strategy == null || !Strategy.of(strategy, name).pinsConnections()) {
            return fixture;
        }
        return new PinnedFixture(fixture);
    }

    /**
     * A pinned strategy keeps one pooled connection per held lease (at most {@link
     * #PINNED_LEASES} of the pool's 40, leaving room for the kit's other work).
     */
    private record PinnedFixture(LockBackendFixture fixture) implements LockBackendFixture {
        static final int PINNED_LEASES = 20;

        @Override
        public String name() {
            return fixture.name();
        }

        @Override
        public String uri() {
            return fixture.uri();
        }

        @Override
        public InetSocketAddress serverAddress() {
            return fixture.serverAddress();
        }

        @Override
        public Set<Capability> capabilities() {
            return fixture.capabilities();
        }

        @Override
        public int heldLeaseLimit() {
            return PINNED_LEASES;
        }
    }

    /** The server's URL with credentials and strategy, in H2's {@code ;} or the others' query syntax. */
    static String uri(DatabaseServer server, String strategy) {
        String url = server.jdbcUrl();
        if (url.startsWith("jdbc:h2:")) {
            return url + ";USER=" + server.user() + ";PASSWORD=" + server.password()
                    + (strategy == null ? "" : ";strategy=" + strategy);
        }
        // The kit lists and breaks advisory locks too, which PostgreSQL records only when asked.
        return url + (url.contains("?") ? "&" : "?") + "user=" + encode(server.user()) + "&password="
                + encode(server.password()) + (strategy == null ? "" : "&strategy=" + strategy)
                + ("advisory".equals(strategy) && url.startsWith("jdbc:postgresql:") ? "&advisoryHolders=true" : "");
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
