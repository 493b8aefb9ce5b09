package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import java.util.function.Supplier;

/** Baton itself, on whatever backend a URI (or a client factory) names. */
public final class BatonSubject implements LockSubject {
    private final String name;
    private final Supplier<LockClient> clients;
    private final String uri;

    public BatonSubject(String name, Supplier<LockClient> clients) {
        this(name, clients, null);
    }

    private BatonSubject(String name, Supplier<LockClient> clients, String uri) {
        this.name = name;
        this.clients = clients;
        this.uri = uri;
    }

    /** Baton on {@code uri} with the given options. */
    public static BatonSubject of(String name, String uri, LockOptions options) {
        return new BatonSubject(name, () -> Baton.connect(uri, options), uri);
    }

    /** The URI, when the subject was built from one (other processes can reach the same locks). */
    public java.util.Optional<String> uri() {
        return java.util.Optional.ofNullable(uri);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Client newClient() {
        LockClient client = clients.get();
        return new Client() {
            @Override
            public Held acquire(String lockName) {
                Lease lease = client.lock(lockName).acquire();
                return lease::close;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
