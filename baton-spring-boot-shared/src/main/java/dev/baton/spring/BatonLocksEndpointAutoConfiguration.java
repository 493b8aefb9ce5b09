package dev.baton.spring;

import dev.baton.Baton;
import dev.baton.LockAdmin;
import dev.baton.LockOptions;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locks} Actuator endpoint ({@link BatonLocksEndpoint}), when the actuator is on the class
 * path and the endpoint is exposed ({@code management.endpoints.web.exposure.include=locks}). It
 * reads the backend through a {@link LockAdmin} of its own on {@code baton.uri} (closed with the
 * context); a {@link LockAdmin} bean of the application's replaces it.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(BatonLocksEndpoint.class)
@EnableConfigurationProperties({BatonProperties.class, BatonActuatorProperties.class})
public class BatonLocksEndpointAutoConfiguration {

    /**
     * The admin the endpoint lists and releases through, on the client's backend.
     *
     * @param properties the {@code baton.*} properties: the URI and the operation timeout
     * @return an admin on {@code baton.uri}
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty("baton.uri")
    public LockAdmin batonLockAdmin(BatonProperties properties) {
        LockOptions.Builder options = LockOptions.builder();
        if (properties.getOperationTimeout() != null) {
            options.operationTimeout(properties.getOperationTimeout());
        }
        return Baton.admin(properties.getUri().trim(), options.build());
    }

    /**
     * The endpoint.
     *
     * @param admin the backend's admin
     * @param properties whether the forced release is enabled
     * @return the {@code locks} endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LockAdmin.class)
    public BatonLocksEndpoint batonLocksEndpoint(LockAdmin admin, BatonActuatorProperties properties) {
        return new BatonLocksEndpoint(new LocksEndpointOperations(admin, properties));
    }
}
