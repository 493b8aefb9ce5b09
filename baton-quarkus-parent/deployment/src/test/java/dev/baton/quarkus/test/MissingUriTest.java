package dev.baton.quarkus.test;

import static dev.baton.quarkus.test.StartupFailures.failsWith;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An application without baton.uri does not start. */
class MissingUriTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.http.test-port", "0")
            .assertException(
                    failsWith("Baton: the property baton.uri is not set", "set it to the URI of your lock backend"));

    @Test
    void startupFails() {
        // QuarkusUnitTest fails the class when the startup does not fail as asserted above.
    }
}
