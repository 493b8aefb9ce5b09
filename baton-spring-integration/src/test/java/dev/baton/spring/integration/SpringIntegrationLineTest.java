package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Which Spring Integration the tests of this run have: 7.x in the default run, 6.5 (with Spring
 * Framework 6.2) in the run {@code spring-integration-6.5} of pom.xml, where the same compiled
 * registry passes the same contract.
 */
class SpringIntegrationLineTest {

    @Test
    void theRunHasTheSpringIntegrationItNames() {
        String expected = System.getProperty("baton.expected.spring-integration");
        assertThat(expected).as("set by pom.xml for each run").isNotBlank();
        assertThat(LockRegistry.class.getPackage().getImplementationVersion()).isEqualTo(expected);
        String framework = SpringVersion.getVersion();
        if (expected.startsWith("6.")) {
            assertThat(LockRegistry.class.getTypeParameters())
                    .as("6.5's LockRegistry is not generic")
                    .isEmpty();
            assertThat(framework).startsWith("6.2.");
        } else {
            assertThat(LockRegistry.class.getTypeParameters()).hasSize(1);
            assertThat(framework).startsWith("7.");
        }
    }
}
