package dev.baton.spring;

import dev.baton.LockClient;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The health indicator {@code baton} of the application's {@link LockClient}, when Spring Boot
 * 3.5's actuator ({@code spring-boot-actuator-autoconfigure}) is on the class path. Turned off
 * with {@code management.health.baton.enabled=false}; replaced by a bean named {@code
 * batonHealthIndicator} of the application's own.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("baton")
public class BatonHealthAutoConfiguration {

    /**
     * The health indicator: up when one round trip to the backend works (a {@code tryAcquire} and
     * release of a reserved lock), down with the backend's error otherwise.
     *
     * @param client the client whose backend is checked
     * @return the indicator named {@code baton}
     */
    @Bean
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    public HealthIndicator batonHealthIndicator(LockClient client) {
        return new BatonHealthIndicator(client);
    }
}
