package dev.baton.quarkus.runtime;

import dev.baton.LockOptions;
import dev.baton.micrometer.BatonMeters;
import dev.baton.quarkus.LockOptionsCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * Adds Baton's meters to the extension's client, when the application has quarkus-micrometer and
 * baton-micrometer: a {@link BatonMeters} listener on Quarkus' {@link MeterRegistry}, tagged by
 * backend only (no lock-name tag, so the number of series stays bounded).
 */
@Singleton
class BatonMetersCustomizer implements LockOptionsCustomizer {

    @Inject
    MeterRegistry registry;

    @Override
    public void customize(LockOptions.Builder options) {
        options.listener(BatonMeters.builder(registry).build());
    }
}
