package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.RedisServer;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code baton} health indicator against live backends (H2, Redis) and an unreachable one. */
class BatonHealthIndicatorTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonHealthAutoConfiguration.class));

    @Test
    void upWithTheRoundTripLatencyOnALiveDatabase() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-health").run(context -> {
            Health health = context.getBean("batonHealthIndicator", HealthIndicator.class)
                    .getHealth(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsKeys("latencyMillis", "backend");
        });
    }

    @Test
    void upOnALiveRedis() {
        try (RedisServer redis = RedisServer.start()) {
            runner.withPropertyValues("baton.uri=" + redis.uri(), "baton.operation-timeout=2s")
                    .run(context -> assertThat(context.getBean("batonHealthIndicator", HealthIndicator.class)
                                    .getHealth(true)
                                    .getStatus())
                            .isEqualTo(Status.UP));
        }
    }

    @Test
    void downWithTheReasonWhenTheBackendIsUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        runner.withPropertyValues("baton.uri=redis://127.0.0.1:" + closedPort, "baton.operation-timeout=500ms")
                .run(context -> {
                    Health health = context.getBean("batonHealthIndicator", HealthIndicator.class)
                            .getHealth(true);
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(String.valueOf(health.getDetails().get("error")))
                            .contains("LockUnavailableException")
                            .contains(String.valueOf(closedPort));
                });
    }

    @Test
    void offWhenDisabled() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-health-off", "management.health.baton.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("batonHealthIndicator"));
    }
}
