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
        boolean pinned = strategy != null && Strategy.of(strategy, name).pinsConnections();
        return new DatabaseFixture(name, server, strategy, capabilities, pinned ? PINNED_LEASES : Integer.MAX_VALUE);
    }

    /**
     * A pinned strategy keeps one pooled connection per held lease: at most this many of the pool's
     * 40, leaving room for the kit's other work.
     */
    private static final int PINNED_LEASES = 20;

    /** A strategy on a database server; a failed kit test reports the server's sessions and locks. */
    private record DatabaseFixture(
            String name,
            Supplier<? extends DatabaseServer> server,
            String strategy,
            Set<Capability> capabilities,
            int heldLeaseLimit)
            implements LockBackendFixture {

        @Override
        public String uri() {
            return JdbcFixtures.uri(server.get(), strategy);
        }

        @Override
        public InetSocketAddress serverAddress() {
            return new InetSocketAddress(server.get().host(), server.get().port());
        }

        @Override
        public String serverState() {
            return DatabaseState.of(server.get());
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
