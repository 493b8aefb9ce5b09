package dev.baton.locked.internal;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The {@code baton.*} properties every framework reads, turned into the application's client, with
 * the same one-line errors naming the property under every framework. The framework reads the values
 * (Spring's binder, Quarkus' config mapping) and lets the application's customizers run.
 *
 * @param leaseTime {@code baton.lease-time}, {@code null} for the default
 * @param operationTimeout {@code baton.operation-timeout}, {@code null} for the default
 * @param pollInitialDelay {@code baton.poll-initial-delay}, {@code null} for the default
 * @param pollMaxDelay {@code baton.poll-max-delay}, {@code null} for the default
 * @param autoRenew {@code baton.auto-renew}
 * @param fair {@code baton.fair}
 * @param clientName {@code baton.client-name}, {@code null} or empty for none
 */
public record ClientSettings(
        Duration leaseTime,
        Duration operationTimeout,
        Duration pollInitialDelay,
        Duration pollMaxDelay,
        boolean autoRenew,
        boolean fair,
        String clientName) {

    /**
     * The client's options from these properties, then changed by the application's customizers.
     *
     * @param customizers changes the builder after the properties, in the framework's order
     * @return the options
     * @throws LockConfigurationException naming the property whose value is refused, or the
     *     properties that do not fit together
     */
    public LockOptions options(Consumer<LockOptions.Builder> customizers) {
        LockOptions.Builder builder = LockOptions.builder();
        set("baton.lease-time", leaseTime, builder::leaseTime);
        set("baton.operation-timeout", operationTimeout, builder::operationTimeout);
        set("baton.poll-initial-delay", pollInitialDelay, builder::pollInitialDelay);
        set("baton.poll-max-delay", pollMaxDelay, builder::pollMaxDelay);
        builder.autoRenew(autoRenew);
        builder.fair(fair);
        try {
            builder.clientName(clientName == null ? "" : clientName.strip());
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException("Baton: the property baton.client-name is invalid: "
                    + e.getMessage().replaceFirst("^LockOptions: ", ""));
        }
        customizers.accept(builder);
        try {
            return builder.build();
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException("Baton: the baton.* properties do not fit together: " + e.getMessage()
                    + " (baton.poll-initial-delay, baton.poll-max-delay)");
        }
    }

    /**
     * {@code baton.uri}, which must be set.
     *
     * @param uri the property's value, {@code null} when not set
     * @param ownClient how the application supplies a client of its own instead ("define a LockClient
     *     bean of your own")
     * @return the URI, trimmed
     * @throws LockConfigurationException naming the property when it is missing or blank
     */
    public static String requireUri(String uri, String ownClient) {
        if (uri == null || uri.isBlank()) {
            throw new LockConfigurationException("Baton: the property baton.uri is not set; set it to the URI of your"
                    + " lock backend (for example baton.uri=jdbc:postgresql://db:5432/app, redis://host:6379 or"
                    + " jdbc:h2:mem:locks), or " + ownClient);
        }
        return uri.trim();
    }

    /**
     * Connects the client.
     *
     * @param uri the backend's URI
     * @param named the properties the URI comes from, for the message ("baton.uri")
     * @param options the client's options
     * @return the connected client
     * @throws LockConfigurationException naming the properties when no backend serves the URI or it
     *     names a bad option
     */
    public static LockClient connect(String uri, String named, LockOptions options) {
        // The message carries the backend's own, so no cause: the root of the startup failure names the property.
        try {
            return Baton.connect(uri, options);
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException(
                    "Baton: the property " + named + " is invalid: " + e.getMessage() + "; fix " + named);
        }
    }

    private static void set(String property, Duration value, Consumer<Duration> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (LockConfigurationException e) {
            throw new LockConfigurationException("Baton: the property " + property + " must be a positive duration"
                    + " but was " + value + "; set it to a value such as 30s or 500ms");
        }
    }
}
