package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.RedisServer;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The {@code baton} health indicator against live backends (H2, Redis) and an unreachable one. Each
 * starter's {@code BatonHealthIndicatorTest} runs it with its own {@link BatonHealthAutoConfiguration}
 * and reads the result through its Boot line's health types.
 */
abstract class BatonHealthIndicatorContract {

    /**
     * One check, as the Boot line's health types report it.
     *
     * @param status the status code ({@code UP}, {@code DOWN})
     * @param details the details, with the error's when down
     */
    record Check(String status, Map<String, Object> details) {}

    /** Runs the context's {@code batonHealthIndicator} once, with details. */
    abstract Check check(ApplicationContext context);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonHealthAutoConfiguration.class));

    @Test
    void upWithTheRoundTripLatencyOnALiveDatabase() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-health").run(context -> {
            Check health = check(context);
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details()).containsKeys("latencyMillis", "backend");
        });
    }

    @Test
    void upOnALiveRedis() {
        try (RedisServer redis = RedisServer.start()) {
            runner.withPropertyValues("baton.uri=" + redis.uri(), "baton.operation-timeout=2s")
                    .run(context -> assertThat(check(context).status()).isEqualTo("UP"));
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
                    Check health = check(context);
                    assertThat(health.status()).isEqualTo("DOWN");
                    assertThat(String.valueOf(health.details().get("error")))
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
