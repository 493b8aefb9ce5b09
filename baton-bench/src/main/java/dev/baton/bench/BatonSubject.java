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

    public BatonSubject(String name, Supplier<LockClient> clients) {
        this.name = name;
        this.clients = clients;
    }

    /** Baton on {@code uri} with the given options. */
    public static BatonSubject of(String name, String uri, LockOptions options) {
        return new BatonSubject(name, () -> Baton.connect(uri, options));
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
