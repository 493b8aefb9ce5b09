package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

/** The auto-configured client against a real H2 database: binding, replacement, shutdown, bad properties. */
class BatonAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BatonAutoConfiguration.class));

    @Test
    void propertiesBindToTheClientsOptions() {
        runner.withPropertyValues(
                        "baton.uri=jdbc:h2:mem:starter-binding",
                        "baton.lease-time=2s",
                        "baton.operation-timeout=1500ms",
                        "baton.auto-renew=false",
                        "baton.poll-max-delay=PT0.2S")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client.options())
                            .isEqualTo(LockOptions.builder()
                                    .leaseTime(Duration.ofSeconds(2))
                                    .operationTimeout(Duration.ofMillis(1500))
                                    .autoRenew(false)
                                    .pollMaxDelay(Duration.ofMillis(200))
                                    .build());
                    assertThat(client.backendName()).containsIgnoringCase("h2");
                    try (Lease lease = client.lock("bound").acquire(Duration.ofSeconds(5))) {
                        assertThat(lease.isValid()).isTrue();
                    }
                });
    }

    @Test
    void everyLockOptionHasAProperty() {
        runner.withPropertyValues(
                        "baton.uri=jdbc:h2:mem:starter-every-option",
                        "baton.lease-time=2s",
                        "baton.operation-timeout=1500ms",
                        "baton.auto-renew=false",
                        "baton.poll-initial-delay=5ms",
                        "baton.poll-max-delay=PT0.2S",
                        "baton.client-name=billing",
                        "baton.fair=false")
                .run(context -> assertThat(context.getBean(LockClient.class).options())
                        .isEqualTo(LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(2))
                                .operationTimeout(Duration.ofMillis(1500))
                                .autoRenew(false)
                                .pollInitialDelay(Duration.ofMillis(5))
                                .pollMaxDelay(Duration.ofMillis(200))
                                .clientName("billing")
                                .fair(false)
                                .build()));
    }

    @Test
    void backendPropertiesBecomeTheUrisOptions() {
        runner.withPropertyValues(
                        "baton.uri=jdbc:h2:mem:starter-backend-options;DB_CLOSE_DELAY=-1",
                        "baton.jdbc.strategy=table",
                        "baton.jdbc.table=app_locks")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client.backendName()).startsWith("jdbc-table");
                    String database = "jdbc:h2:mem:starter-backend-options";
                    try (Lease lease = client.lock("with-options").acquire(Duration.ofSeconds(5));
                            LockClient sameTable = Baton.connect(database + ";strategy=table;table=app_locks");
                            LockClient defaultTable = Baton.connect(database + ";strategy=table")) {
                        assertThat(sameTable.lock("with-options").tryAcquire())
                                .as("held in baton.jdbc.table's table")
                                .isEmpty();
                        Optional<Lease> elsewhere =
                                defaultTable.lock("with-options").tryAcquire();
                        assertThat(elsewhere).as("not in the default table").isPresent();
                        elsewhere.get().close();
                    }
                });
    }

    @Test
    void aBadBackendPropertyFailsStartupNamingIt() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-bad-strategy", "baton.jdbc.strategy=magic")
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("baton.uri with its baton.* backend properties is invalid")
                        .contains("strategy 'magic' is not available"));
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-other-group", "baton.zookeeper.root=/app")
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("baton.zookeeper.root is set, but baton.uri is a jdbc:h2 URI"));
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-bad-name", "baton.client-name=" + "x".repeat(41))
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("baton.client-name is invalid")
                        .contains("at most 40 characters"));
    }

    @Test
    void customizersAdjustTheOptionsAfterTheProperties() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-customizer", "baton.lease-time=2s")
                .withBean(LockOptionsCustomizer.class, () -> options -> options.pollInitialDelay(Duration.ofMillis(3)))
                .run(context -> assertThat(context.getBean(LockClient.class).options())
                        .extracting(LockOptions::leaseTime, LockOptions::pollInitialDelay)
                        .containsExactly(Duration.ofSeconds(2), Duration.ofMillis(3)));
    }

    @Test
    void anApplicationsOwnClientReplacesTheAutoConfiguredOne() {
        LockClient own = Baton.connect("jdbc:h2:mem:starter-own");
        runner.withBean(LockClient.class, () -> own).run(context -> {
            assertThat(context).hasSingleBean(LockClient.class);
            assertThat(context.getBean(LockClient.class)).isSameAs(own);
        });
        own.close();
    }

    @Test
    void theClientIsClosedWithTheContextAndLeavesNoThreads() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        AtomicReference<LockClient> client = new AtomicReference<>();
        AtomicReference<Lease> lease = new AtomicReference<>();
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-close", "baton.lease-time=2s")
                .run(context -> {
                    client.set(context.getBean(LockClient.class));
                    lease.set(client.get().lock("held-at-shutdown").acquire(Duration.ofSeconds(5)));
                    assertThat(batonThreads(before))
                            .as("renewal runs while a lease is held")
                            .isNotEmpty();
                });

        assertThat(lease.get().isValid()).as("released by the client's close").isFalse();
        assertThatThrownBy(() -> client.get().lock("after").acquire(Duration.ofSeconds(1)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("closed");
        Await.condition("the closed client's threads to end", KitTime.CLOSE, () -> batonThreads(before)
                .isEmpty());
    }

    private static List<String> batonThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !before.contains(thread) && thread.isAlive())
                .map(Thread::getName)
                .filter(name -> name.startsWith("baton-"))
                .collect(Collectors.toList());
    }

    @Test
    void aMissingUriFailsStartupNamingTheProperty() {
        runner.run(context -> assertThat(rootMessage(context.getStartupFailure()))
                .contains("baton.uri is not set")
                .contains("jdbc:postgresql://"));
    }

    @Test
    void aBadUriFailsStartupNamingTheProperty() {
        runner.withPropertyValues("baton.uri=nosuch://host:1")
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("baton.uri is invalid")
                        .contains("unknown scheme 'nosuch'"));
    }

    @Test
    void aNonPositiveDurationFailsStartupNamingTheProperty() {
        runner.withPropertyValues("baton.uri=jdbc:h2:mem:starter-bad-duration", "baton.lease-time=0s")
                .run(context -> assertThat(rootMessage(context.getStartupFailure()))
                        .contains("baton.lease-time must be a positive duration"));
    }

    @Test
    void configurationMetadataIsGeneratedForIdeCompletion() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                    .contains(
                            "\"baton.uri\"",
                            "\"baton.lease-time\"",
                            "\"baton.operation-timeout\"",
                            "\"baton.auto-renew\"",
                            "\"baton.poll-initial-delay\"",
                            "\"baton.poll-max-delay\"",
                            "\"baton.client-name\"",
                            "\"baton.fair\"",
                            "\"baton.jdbc.strategy\"",
                            "\"baton.jdbc.create-schema\"",
                            "\"baton.redis.wait-replicas\"",
                            "\"baton.redis.topology-refresh\"",
                            "\"baton.zookeeper.session-timeout\"",
                            "\"baton.etcd.root\"",
                            "\"baton.azure.create-container\"",
                            "\"value\": \"advisory\"");
        }
    }

    /** The message of the Baton exception under Spring's bean-creation wrappers. */
    static String rootMessage(Throwable failure) {
        assertThat(failure).as("startup failed").isNotNull();
        return NestedExceptionUtils.getMostSpecificCause(failure).getMessage();
    }
}
