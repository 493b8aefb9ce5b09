package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** Runs the README's example as an application on H2. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRuns() {
        try (ConfigurableApplicationContext context = SpringApplication.run(
                ReadmeExample.class,
                "--baton.uri=jdbc:h2:mem:starter-readme",
                "--spring.main.banner-mode=off",
                "--spring.main.web-application-type=none")) {
            ReadmeExample.Billing billing = context.getBean(ReadmeExample.Billing.class);
            long first = billing.bill(42);
            assertThat(billing.bill(42)).isGreaterThan(first);
        }
    }
}
