package dev.baton.quarkus;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.quarkus.runtime.BatonConfig;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The application's {@link LockClient}, built from {@link BatonConfig} and then changed by every
 * {@link LockOptionsCustomizer} bean; created at startup (so a bad configuration fails it) and closed
 * at shutdown, releasing every lease it still holds with no thread left behind. A {@link LockClient}
 * bean of the application's own replaces it; {@link Locked} methods and the health check then use
 * that one.
 */
@Singleton
class BatonClientProducer {

    @Produces
    @ApplicationScoped
    @DefaultBean
    @Startup
    LockClient batonLockClient(BatonConfig config, Instance<LockOptionsCustomizer> customizers) {
        String uri = config.uri().orElse("");
        if (uri.isBlank()) {
            throw new LockConfigurationException("Baton: the property baton.uri is not set; set it to the URI of your"
                    + " lock backend (for example baton.uri=jdbc:postgresql://db:5432/app, redis://host:6379 or"
                    + " jdbc:h2:mem:locks), or produce a LockClient bean of your own");
        }
        LockOptions options = options(config, customizers);
        // The message carries the backend's own, so no cause: the root of the startup failure names the property.
        try {
            return Baton.connect(uri.trim(), options);
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException(
                    "Baton: the property baton.uri is invalid: " + e.getMessage() + "; fix baton.uri");
        }
    }

    void close(@Disposes LockClient client) {
        client.close();
    }

    static LockOptions options(BatonConfig config, Iterable<LockOptionsCustomizer> customizers) {
        LockOptions.Builder builder = LockOptions.builder();
        set("baton.lease-time", config.leaseTime(), builder::leaseTime);
        set("baton.operation-timeout", config.operationTimeout(), builder::operationTimeout);
        set("baton.poll-initial-delay", config.pollInitialDelay(), builder::pollInitialDelay);
        set("baton.poll-max-delay", config.pollMaxDelay(), builder::pollMaxDelay);
        builder.autoRenew(config.autoRenew());
        builder.fair(config.fair());
        try {
            builder.clientName(config.clientName().map(String::strip).orElse(""));
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException("Baton: the property baton.client-name is invalid: "
                    + e.getMessage().replaceFirst("^LockOptions: ", ""));
        }
        customizers.forEach(customizer -> customizer.customize(builder));
        try {
            return builder.build();
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException("Baton: the baton.* properties do not fit together: " + e.getMessage()
                    + " (baton.poll-initial-delay, baton.poll-max-delay)");
        }
    }

    private static void set(String property, Duration value, Consumer<Duration> setter) {
        try {
            setter.accept(value);
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException("Baton: the property " + property + " must be a positive duration"
                    + " but was " + value + "; set it to a value such as 30s or 500ms");
        }
    }
}
