package dev.baton.spring;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.ApplicationContext;

/** The shared health indicator tests, read through Boot 3.5's health types. */
class BatonHealthIndicatorTest extends BatonHealthIndicatorContract {

    @Override
    Check check(ApplicationContext context) {
        Health health =
                context.getBean("batonHealthIndicator", HealthIndicator.class).getHealth(true);
        return new Check(health.getStatus().getCode(), health.getDetails());
    }
}
