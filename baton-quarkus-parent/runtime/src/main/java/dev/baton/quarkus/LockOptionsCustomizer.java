package dev.baton.quarkus;

import dev.baton.LockOptions;

/**
 * Adjusts the {@link LockOptions} of the extension's {@link dev.baton.LockClient} after the {@code
 * baton.*} properties have been applied. Every CDI bean of this type is called before the client
 * connects; a customizer that throws fails the application's startup.
 *
 * <pre>{@code
 * @Singleton
 * class SlowPolling implements LockOptionsCustomizer {
 *     public void customize(LockOptions.Builder options) {
 *         options.pollMaxDelay(Duration.ofSeconds(2));
 *     }
 * }
 * }</pre>
 *
 * <p>Not called when the application produces its own {@link dev.baton.LockClient} bean.
 */
@FunctionalInterface
public interface LockOptionsCustomizer {

    /**
     * Changes the builder in place.
     *
     * @param options the builder, already set from the {@code baton.*} properties; the client is
     *     built from it after every customizer ran, and a value that does not fit fails startup
     */
    void customize(LockOptions.Builder options);
}
