package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The {@code locks} Actuator endpoint in a running web application on a random port, over HTTP: the
 * listing, its prefix, and the forced release, refused unless enabled and given write access, and
 * never breaking a holder other than the one named.
 */
@Timeout(120)
class LocksEndpointAppTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @AfterEach
    void stop() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext start(String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "baton.uri=jdbc:h2:mem:endpoint-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                "server.port=0",
                "server.address=127.0.0.1",
                "management.endpoints.web.exposure.include=locks",
                "spring.main.banner-mode=off"));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .properties(all.toArray(String[]::new))
                .run();
        contexts.add(context);
        return context;
    }

    private static String base(ConfigurableApplicationContext context) {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + "/actuator/locks";
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> release(ConfigurableApplicationContext context, String name, String owner)
            throws IOException, InterruptedException {
        String body = "{\"name\":\"" + name + "\"" + (owner == null ? "" : ",\"owner\":\"" + owner + "\"") + "}";
        return http.send(
                HttpRequest.newBuilder(URI.create(base(context)))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The owner id the listing shows for the only holder of {@code name}. */
    private static String ownerIn(String listing, String name) {
        int at = listing.indexOf("\"name\":\"" + name + "\"");
        assertThat(at).as(listing).isNotNegative();
        int owner = listing.indexOf("\"owner\":\"", at) + "\"owner\":\"".length();
        return listing.substring(owner, listing.indexOf('"', owner));
    }

    @Test
    void theListingShowsTheHoldersAndTheReleaseIsRefusedByDefault() throws Exception {
        ConfigurableApplicationContext context = start();
        LockClient client = context.getBean(LockClient.class);
        try (Lease lease = client.lock("invoice-42").acquire(KitTime.grant());
                Lease other = client.lock("report-7").acquire(KitTime.grant())) {
            HttpResponse<String> all = get(base(context));
            System.out.println("GET /actuator/locks -> " + all.statusCode() + "\n" + all.body());
            assertThat(all.statusCode()).isEqualTo(200);
            assertThat(all.body())
                    .contains("\"backend\":\"" + client.backendName() + "\"")
                    .contains("\"name\":\"invoice-42\"", "\"name\":\"report-7\"")
                    .contains("\"fencingToken\":" + lease.fencingToken())
                    .contains("\"kind\":\"lock\"");

            HttpResponse<String> invoices =
                    get(base(context) + "?prefix=" + URLEncoder.encode("invoice-", StandardCharsets.UTF_8));
            assertThat(invoices.statusCode()).isEqualTo(200);
            assertThat(invoices.body()).contains("\"name\":\"invoice-42\"").doesNotContain("report-7");

            HttpResponse<String> refused = release(context, "invoice-42", ownerIn(all.body(), "invoice-42"));
            assertThat(refused.statusCode())
                    .as("a write operation without write access is not mapped: " + refused.body())
                    .isEqualTo(405);
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void withWriteAccessButNotEnabledTheReleaseIsRefusedWithTheReason() throws Exception {
        ConfigurableApplicationContext context = start("management.endpoint.locks.access=unrestricted");
        LockClient client = context.getBean(LockClient.class);
        try (Lease lease = client.lock("invoice-43").acquire(KitTime.grant())) {
            String owner = ownerIn(get(base(context)).body(), "invoice-43");
            HttpResponse<String> refused = release(context, "invoice-43", owner);
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.body()).contains("baton.actuator.release-enabled=true");
            assertThat(lease.isValid()).isTrue();
            assertThat(get(base(context)).body()).contains(owner);
        }
    }

    @Test
    void anEnabledReleaseBreaksTheNamedHolderOnlyAndLogsItAtWarn() throws Exception {
        ConfigurableApplicationContext context = start(
                "management.endpoint.locks.access=unrestricted",
                "baton.actuator.release-enabled=true",
                "baton.lease-time=2s");
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(BatonLocksEndpoint.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try {
            LockClient client = context.getBean(LockClient.class);
            Lease lease = client.lock("invoice-44").acquire(KitTime.grant());
            CompletableFuture<Exception> lost = new CompletableFuture<>();
            lease.onLost(lost::complete);
            String owner = ownerIn(get(base(context)).body(), "invoice-44");

            HttpResponse<String> noOwner = release(context, "invoice-44", null);
            assertThat(noOwner.statusCode()).isEqualTo(400);
            assertThat(noOwner.body()).contains("owner id");
            HttpResponse<String> wrongOwner = release(context, "invoice-44", "not-" + owner);
            assertThat(wrongOwner.statusCode()).isEqualTo(404);
            assertThat(wrongOwner.body()).contains("nothing was broken");
            assertThat(lease.isValid()).isTrue();
            assertThat(logged.list).isEmpty();

            HttpResponse<String> released = release(context, "invoice-44", owner);
            assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
            assertThat(released.body()).contains("\"released\"", owner);
            assertThat(lost.get(KitTime.bound(KitTime.LEASE).toMillis(), TimeUnit.MILLISECONDS))
                    .isNotNull();
            assertThat(get(base(context)).body()).doesNotContain("invoice-44");
            assertThat(logged.list).singleElement().satisfies(event -> {
                assertThat(event.getLevel()).isEqualTo(Level.WARN);
                assertThat(event.getFormattedMessage()).contains("invoice-44", owner);
            });
            lease.close();
        } finally {
            logger.detachAppender(logged);
        }
    }
}
