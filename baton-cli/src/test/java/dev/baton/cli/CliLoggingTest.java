package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which log records reach the command's standard error, with and without {@code --verbose}. */
class CliLoggingTest {
    private static final Logger CLIENT = Logger.getLogger("org.apache.zookeeper.ClientCnxn");
    private static final Logger SERVER = Logger.getLogger("org.apache.zookeeper.server.quorum.LearnerHandler");

    @AfterEach
    void quiet() {
        CliLogging.configure(false, new PrintWriter(new StringWriter()));
    }

    @Test
    void byDefaultAClientErrorIsOneLineAndAnEmbeddedServerSaysNothing() {
        StringWriter err = new StringWriter();
        CliLogging.configure(false, new PrintWriter(err, true));

        SERVER.severe("Unexpected exception in LearnerHandler");
        CLIENT.warning("Session 0x1 for server 127.0.0.1:2181, Closing socket connection");
        CLIENT.severe("Connection refused");

        assertThat(err.toString().lines().toList()).containsExactly("baton: error: Connection refused");
    }

    @Test
    void verboseShowsTheEmbeddedServersAndTheWarningsToo() {
        StringWriter err = new StringWriter();
        CliLogging.configure(true, new PrintWriter(err, true));

        SERVER.severe("Unexpected exception in LearnerHandler");
        CLIENT.warning("Closing socket connection");

        assertThat(err.toString())
                .contains("Unexpected exception in LearnerHandler")
                .contains("Closing socket connection");
    }
}
