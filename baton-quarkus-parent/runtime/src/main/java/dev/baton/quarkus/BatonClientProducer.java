package dev.baton.quarkus;

import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.locked.internal.ClientSettings;
import dev.baton.locked.internal.LockedReleases;
import dev.baton.quarkus.runtime.BatonConfig;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The application's {@link LockClient}, built from {@link BatonConfig} and then changed by every
 * {@link LockOptionsCustomizer} bean; created at startup (so a bad configuration fails it) and closed
 * at shutdown, releasing every lease it still holds with no thread left behind. A {@link LockClient}
 * bean of the application's own replaces it; {@link Locked} methods and the health check then use
 * that one. The properties' checks and messages are the Spring starters' ({@link ClientSettings}).
 */
@Singleton
class BatonClientProducer {

    @Produces
    @ApplicationScoped
    @DefaultBean
    @Startup
    LockClient batonLockClient(BatonConfig config, Instance<LockOptionsCustomizer> customizers) {
        String uri = ClientSettings.requireUri(config.uri().orElse(null), "produce a LockClient bean of your own");
        LockOptions options = new ClientSettings(
                        config.leaseTime(),
                        config.operationTimeout(),
                        config.pollInitialDelay(),
                        config.pollMaxDelay(),
                        config.autoRenew(),
                        config.fair(),
                        config.clientName().orElse(null))
                .options(builder -> customizers.forEach(customizer -> customizer.customize(builder)));
        return ClientSettings.connect(uri, "baton.uri", options);
    }

    void close(@Disposes LockClient client) {
        client.close();
    }

    /**
     * Where {@link Locked} calls that ended before their {@code lockAtLeastFor} leave their leases until
     * it is up; closed when the application stops, releasing them at once (or the client's own close
     * does, whichever comes first).
     */
    @Produces
    @Singleton
    LockedReleases batonLockedReleases() {
        return new LockedReleases();
    }

    void close(@Disposes LockedReleases releases) {
        releases.close();
    }
}
