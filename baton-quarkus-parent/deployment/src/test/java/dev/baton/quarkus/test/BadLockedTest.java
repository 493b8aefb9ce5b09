package dev.baton.quarkus.test;

import static dev.baton.quarkus.test.StartupFailures.failsWith;

import dev.baton.quarkus.Locked;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A name template that names a parameter the method lacks stops the startup, naming the method. */
class BadLockedTest {

    @ApplicationScoped
    public static class Reports {
        @Locked(name = "report-#{#reportId}")
        public void run(long id) {}
    }

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Reports.class))
            .overrideConfigKey("baton.uri", "jdbc:h2:mem:quarkus-bad-locked")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .assertException(failsWith(
                    "@Locked Reports.run(long)", "#reportId", "no parameter of that name", "its parameters are [id]"));

    @Test
    void startupFails() {
        // QuarkusUnitTest fails the class when the startup does not fail as asserted above.
    }
}
