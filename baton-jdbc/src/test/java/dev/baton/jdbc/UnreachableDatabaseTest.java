package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.tck.KitTime;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A database that is not there: a clear, bounded failure instead of a hang. */
class UnreachableDatabaseTest {

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void connectDoesNoIoAndTheFirstOperationFailsWithinTheOperationTimeout() throws IOException {
        LockOptions options =
                LockOptions.builder().operationTimeout(Duration.ofMillis(500)).build();
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/app?user=app&password=secret-pw";

        try (LockClient client = Baton.connect(url, options)) {
            assertThat(client.backendName()).isEqualTo("jdbc-table (PostgreSQL)");
            KitTime.Stopwatch failed = KitTime.stopwatch();
            assertThatThrownBy(() -> client.lock("down").acquire(Duration.ofSeconds(30)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("'down'")
                    .hasMessageContaining("jdbc-table (PostgreSQL)")
                    .hasMessageContaining(
                            "cannot connect to the database server; check the host and port in the" + " JDBC URL")
                    .as("the driver's own reason")
                    .hasMessageContaining("[SQLState 08001: Connection to 127.0.0.1:")
                    .hasMessageContaining("refused")
                    .as("no pool-size hint: the pool was not exhausted")
                    .hasMessageNotContaining("pool")
                    .hasMessageNotContaining("secret-pw");
            // Within the operation timeout, not after a second one spent abandoning an attempt that
            // never reached the database; this checks "no hang", not speed.
            assertThat(failed.millis())
                    .as("failed after %s", failed)
                    .isLessThan(failed.allows(options.operationTimeout().plus(KitTime.PAST_DEADLINE))
                            .toMillis());
        }
    }

    /** With time for the driver's attempt to fail (the bound above may end before it has), its reason is given. */
    @Test
    void aRefusedConnectionSaysSoWithTheDriversReason() throws IOException {
        LockOptions options =
                LockOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/app?user=app";
        try (LockClient client = Baton.connect(url, options)) {
            assertThatThrownBy(() -> client.lock("refused").acquire(Duration.ofSeconds(30)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("cannot connect to the database server; check the host and port in the"
                            + " JDBC URL and that the server is running and reachable")
                    .hasMessageContaining("[SQLState 08001: Connection to 127.0.0.1:")
                    .hasMessageContaining("refused")
                    .hasMessageNotContaining("pool");
        }
    }
}
