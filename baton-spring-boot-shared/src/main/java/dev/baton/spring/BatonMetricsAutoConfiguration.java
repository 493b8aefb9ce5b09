package dev.baton.spring;

import dev.baton.micrometer.BatonMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Meters for every lock of the auto-configured client, when {@code baton-micrometer} is on the class
 * path and the application has a {@link MeterRegistry} bean (Boot's metrics auto-configuration makes
 * one): a {@link LockOptionsCustomizer} adds a {@link BatonMeters} listener to the client's options.
 * Meters are tagged by backend only (no lock-name tag, so their number stays bounded); define a
 * {@code batonMetersCustomizer} bean of your own to tag by a function of the name. An application's
 * own {@link dev.baton.LockClient} bean adds the listener itself.
 */
@AutoConfiguration(
        before = BatonAutoConfiguration.class,
        afterName = {
            // Boot 4, then Boot 3.5: the registry's auto-configuration on each line (the other is absent).
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({BatonMeters.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
public class BatonMetricsAutoConfiguration {

    /**
     * Adds the meters' listener to the auto-configured client's options.
     *
     * @param registry the application's registry, where the {@code baton.*} meters appear
     * @return a customizer that registers one {@link BatonMeters} listener, tagged by backend only
     */
    @Bean
    @ConditionalOnMissingBean(name = "batonMetersCustomizer")
    public LockOptionsCustomizer batonMetersCustomizer(MeterRegistry registry) {
        BatonMeters meters = BatonMeters.builder(registry).build();
        return options -> options.listener(meters);
    }
}
