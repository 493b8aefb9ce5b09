package dev.baton.spring;

import dev.baton.micrometer.BatonObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Observations (traces, with Micrometer Tracing) of every lock of the auto-configured client, when
 * {@code baton-micrometer} is on the class path and the application has an {@link
 * ObservationRegistry} bean (Boot's observation auto-configuration makes one with the actuator): a
 * {@link LockOptionsCustomizer} adds a {@link BatonObservations} listener to the client's options.
 * The lock's name is a high-cardinality key only; define a {@code batonObservationsCustomizer} bean
 * of your own to add a low-cardinality {@code baton.lock} key from a function of the name. Turned
 * off with {@code baton.observations.enabled=false}. An application's own {@link
 * dev.baton.LockClient} bean adds the listener itself.
 */
@AutoConfiguration(
        before = BatonAutoConfiguration.class,
        afterName = {
            // Boot 4, then Boot 3.5: the registry's auto-configuration on each line (the other is absent).
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass({BatonObservations.class, ObservationRegistry.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(name = "baton.observations.enabled", havingValue = "true", matchIfMissing = true)
public class BatonObservationAutoConfiguration {

    /**
     * Adds the observations' listener to the auto-configured client's options.
     *
     * @param registry the application's registry, whose handlers turn the observations into spans
     *     and timers
     * @return a customizer that registers one {@link BatonObservations} listener
     */
    @Bean
    @ConditionalOnMissingBean(name = "batonObservationsCustomizer")
    public LockOptionsCustomizer batonObservationsCustomizer(ObservationRegistry registry) {
        BatonObservations observations = BatonObservations.builder(registry).build();
        return options -> options.listener(observations);
    }
}
