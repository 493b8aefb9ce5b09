package dev.baton.spring;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationContext;

/** The shared health indicator tests, read through Boot 4's health types. */
class BatonHealthIndicatorTest extends BatonHealthIndicatorContract {

    @Override
    Check check(ApplicationContext context) {
        Health health =
                context.getBean("batonHealthIndicator", HealthIndicator.class).health(true);
        return new Check(health.getStatus().getCode(), health.getDetails());
    }
}
