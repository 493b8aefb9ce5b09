package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import java.util.function.Supplier;

/**
 * Baton itself, on whatever backend a URI (or a client factory) names. Its semaphore rows use {@code
 * LockClient.semaphore(name, permits)}, on the backends that have semaphores.
 */
public final class BatonSubject implements LockSubject {
    private final String name;
    private final Supplier<LockClient> clients;
    private final String uri;
    private final boolean barging;
    private volatile Boolean semaphores;

    public BatonSubject(String name, Supplier<LockClient> clients) {
        this(name, clients, null);
    }

    private BatonSubject(String name, Supplier<LockClient> clients, String uri) {
        this(name, clients, uri, false);
    }

    private BatonSubject(String name, Supplier<LockClient> clients, String uri, boolean barging) {
        this.name = name;
        this.clients = clients;
        this.uri = uri;
        this.barging = barging;
    }

    /**
     * Baton on {@code uri}, a URI that turns fairness off ({@code fair=false}): measured in the
     * contended lock scenarios only, beside the fair subject, since an uncontended acquisition, a
     * semaphore and the recovery after a killed holder are the same either way (so it has no {@link
     * #uri()} for the recovery probe).
     */
    public static BatonSubject barging(String name, String uri, LockOptions options) {
        return new BatonSubject(name, () -> Baton.connect(uri, options), null, true);
    }

    @Override
    public boolean runs(Scenario scenario) {
        return barging ? scenario.contended() && !scenario.semaphore() : LockSubject.super.runs(scenario);
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

    /**
     * Whether the backend has semaphores: asked once, of a client of its own, by taking a semaphore
     * handle (no I/O in the core; a backend without semaphores refuses it with {@link
     * LockConfigurationException}).
     */
    @Override
    public boolean hasSemaphores() {
        Boolean known = semaphores;
        if (known == null) {
            try (LockClient client = clients.get()) {
                client.semaphore("bench-semaphore-probe", 1);
                known = true;
            } catch (LockConfigurationException e) {
                known = false;
            }
            semaphores = known;
        }
        return known;
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
            public Held acquirePermit(String semaphoreName, int permits) {
                Lease lease = client.semaphore(semaphoreName, permits).acquire();
                return lease::close;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
