package dev.baton.quarkus.test;

import static dev.baton.quarkus.test.StartupFailures.failsWith;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A zero lease time stops the startup with the property's name. */
class BadLeaseTimeTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("baton.uri", "jdbc:h2:mem:quarkus-bad-lease")
            .overrideConfigKey("baton.lease-time", "0s")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .assertException(failsWith("Baton: the property baton.lease-time must be a positive duration"));

    @Test
    void startupFails() {
        // QuarkusUnitTest fails the class when the startup does not fail as asserted above.
    }
}
