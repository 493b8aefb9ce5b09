package dev.baton.quarkus.test;

import static dev.baton.quarkus.test.StartupFailures.failsWith;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A URI that no backend on the class path serves stops the startup, naming the property. */
class BadUriTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("baton.uri", "nosuch://127.0.0.1:1/x")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .assertException(failsWith("Baton: the property baton.uri is invalid", "nosuch", "fix baton.uri"));

    @Test
    void startupFails() {
        // QuarkusUnitTest fails the class when the startup does not fail as asserted above.
    }
}
