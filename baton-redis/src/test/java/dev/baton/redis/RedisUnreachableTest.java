package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A Redis that is not there: the socket's reason and the advice, without the client libraries' class names. */
class RedisUnreachableTest {

    @Test
    void aRefusedConnectionSaysSoWithoutNettysExceptionNames() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        LockOptions options =
                LockOptions.builder().operationTimeout(Duration.ofSeconds(2)).build();
        try (LockClient client = Baton.connect("redis://127.0.0.1:" + closed, options)) {
            assertThatThrownBy(() -> client.lock("down").tryAcquire())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("'down'")
                    .hasMessageContaining("cannot connect (Connection refused: /127.0.0.1:" + closed
                            + "); check that Redis runs at that address and is reachable")
                    .hasMessageNotContaining("Exception");
        }
    }
}
