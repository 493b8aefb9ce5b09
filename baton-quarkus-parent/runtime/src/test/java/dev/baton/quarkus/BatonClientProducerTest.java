package dev.baton.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import dev.baton.quarkus.runtime.BatonConfig;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The client producer's refusals of a missing {@code baton.uri} and of a zero lease time, with the one-line
 * message the startup then fails with. That a refusal of the producer stops a Quarkus application's
 * startup with that message at its root is the deployment module's {@code BadUriTest}, a real startup
 * through the same producer; the refusals here need no application.
 */
class BatonClientProducerTest {

    /** The properties as Quarkus maps them, with their defaults ({@link BatonConfig}). */
    private record Config(Optional<String> uri, Duration leaseTime) implements BatonConfig {
        @Override
        public boolean autoRenew() {
            return true;
        }

        @Override
        public Duration operationTimeout() {
            return Duration.ofSeconds(5);
        }

        @Override
        public Duration pollInitialDelay() {
            return Duration.ofMillis(10);
        }

        @Override
        public Duration pollMaxDelay() {
            return Duration.ofMillis(500);
        }

        @Override
        public Optional<String> clientName() {
            return Optional.empty();
        }

        @Override
        public boolean fair() {
            return true;
        }
    }

    @Test
    void aMissingUriIsRefusedNamingThePropertyAndTheWaysToSetIt() {
        assertThatThrownBy(() -> new BatonClientProducer()
                        .batonLockClient(new Config(Optional.empty(), Duration.ofSeconds(30)), null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("Baton: the property baton.uri is not set")
                .hasMessageContaining("set it to the URI of your lock backend")
                .hasMessageContaining("produce a LockClient bean of your own")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aZeroLeaseTimeIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> new BatonClientProducer()
                        .batonLockClient(new Config(Optional.of("jdbc:h2:mem:quarkus-bad-lease"), Duration.ZERO), null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("Baton: the property baton.lease-time must be a positive duration")
                .hasMessageContaining("set it to a value such as 30s")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
