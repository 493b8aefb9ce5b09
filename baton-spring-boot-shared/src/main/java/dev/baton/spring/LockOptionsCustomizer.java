package dev.baton.spring;

import dev.baton.LockOptions;

/**
 * Adjusts the {@link LockOptions} of the auto-configured {@link dev.baton.LockClient} after the
 * {@code baton.*} properties have been applied. Every bean of this type is called, in {@link
 * org.springframework.core.annotation.Order} order, before the client connects; a customizer that
 * throws fails the application's startup.
 *
 * <pre>{@code
 * @Bean
 * LockOptionsCustomizer slowPolling() {
 *     return options -> options.pollMaxDelay(Duration.ofSeconds(2));
 * }
 * }</pre>
 *
 * <p>Not called when the application defines its own {@link dev.baton.LockClient} bean.
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
