package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/**
 * A Baton configuration error stops a real application with Spring Boot's "APPLICATION FAILED TO
 * START" report, Baton's one-line message as its description and what to change as its action,
 * instead of a stack of "Caused by:" under "Application run failed".
 */
class BatonFailureAnalyzerTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(BadLocked.class)
    static class AppWithABadAnnotation {}

    static class BadLocked {
        @Locked(name = "job", waitTime = "soon")
        public void run() {}
    }

    @Test
    void aBadUriOptionIsReportedWithDescriptionAndAction() {
        StandardOutput output = new StandardOutput();
        try (output) {
            assertThatThrownBy(() -> new SpringApplicationBuilder(App.class)
                            .properties(
                                    "baton.uri=jdbc:h2:mem:analyzed;stratgy=advisory",
                                    "spring.main.banner-mode=off",
                                    "spring.main.web-application-type=none")
                            .run()
                            .close())
                    .hasRootCauseInstanceOf(dev.baton.LockConfigurationException.class);
        }
        assertThat(output.text())
                .contains("APPLICATION FAILED TO START")
                .contains("Description:")
                .contains(
                        "Baton: the property baton.uri is invalid: Baton JDBC URL jdbc:h2:mem:analyzed;stratgy=advisory:"
                                + " unknown option 'stratgy' (did you mean 'strategy'?)")
                .contains("Action:")
                .contains("Correct the baton.* property named above");
    }

    @Test
    void aBadAnnotationIsReportedWithDescriptionAndAction() {
        StandardOutput output = new StandardOutput();
        try (output) {
            assertThatThrownBy(() -> new SpringApplicationBuilder(AppWithABadAnnotation.class)
                            .properties(
                                    "baton.uri=jdbc:h2:mem:analyzed-annotation",
                                    "spring.main.banner-mode=off",
                                    "spring.main.web-application-type=none")
                            .run()
                            .close())
                    .hasRootCauseInstanceOf(dev.baton.LockConfigurationException.class);
        }
        assertThat(output.text())
                .contains("APPLICATION FAILED TO START")
                .contains("@Locked BadLocked.run(): waitTime = \"soon\" is not a duration")
                .contains("Correct the @Locked annotation named above");
    }
}
