package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.RedisServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lettuce can fail a handshake whose AUTH the server refused with "Connection closed prematurely"
 * (its channel-inactive event overtaking the handshake's failure, which a loaded machine makes more
 * likely). These tests hand {@link AuthDiagnosis} exactly that failure against a real server and
 * check what the user is told.
 */
class AuthDiagnosisTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.startEmbedded("--requirepass", "right");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static RedisURI uri(String password) {
        return RedisURI.builder()
                .withHost(server.host())
                .withPort(server.port())
                .withPassword(password.toCharArray())
                .build();
    }

    private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
        try {
            Await.result(future, KitTime.grant(TIMEOUT));
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aPrematureCloseWithAWrongPasswordIsExplainedAsAnAuthenticationFailure() throws Exception {
        RedisConnectionException closed = new RedisConnectionException("Connection closed prematurely");

        Throwable failure =
                failureOf(AuthDiagnosis.explained(CompletableFuture.failedFuture(closed), uri("wrong"), TIMEOUT));

        assertThat(failure).isInstanceOf(RedisConnectionException.class).hasCause(closed);
        assertThat(RedisFailures.explain(failure))
                .contains("authentication failed")
                .contains("check the password")
                .doesNotContain("wrong");
    }

    @Test
    void aPrematureCloseWithTheRightPasswordStaysAConnectionFailure() throws Exception {
        RedisConnectionException closed = new RedisConnectionException("Connection closed prematurely");

        Throwable failure =
                failureOf(AuthDiagnosis.explained(CompletableFuture.failedFuture(closed), uri("right"), TIMEOUT));

        assertThat(failure).isSameAs(closed);
        assertThat(RedisFailures.explain(failure)).doesNotContain("authentication");
    }

    @Test
    void aClusterRefreshWhoseSeedClosedPrematurelyIsExplainedToo() throws Exception {
        // Lettuce's cluster client reports each seed's failure as a suppressed exception.
        RuntimeException refresh = new RuntimeException("Cannot retrieve cluster partitions");
        refresh.addSuppressed(new RedisConnectionException(
                "Unable to connect", new RedisConnectionException("Connection closed prematurely")));

        Throwable failure =
                failureOf(AuthDiagnosis.explained(CompletableFuture.failedFuture(refresh), uri("wrong"), TIMEOUT));

        assertThat(RedisFailures.explain(failure)).contains("authentication failed");
    }

    @Test
    void otherFailuresAreLeftAsTheyAre() throws Exception {
        RedisConnectionException refused = new RedisConnectionException("Connection refused");

        Throwable failure =
                failureOf(AuthDiagnosis.explained(CompletableFuture.failedFuture(refused), uri("wrong"), TIMEOUT));

        assertThat(failure).isSameAs(refused);
    }

    @Test
    void theServersRefusalIsReadFromTheServer() {
        assertThat(AuthDiagnosis.refusal(uri("wrong"), TIMEOUT)).containsIgnoringCase("pass");
        assertThat(AuthDiagnosis.refusal(uri("right"), TIMEOUT)).isNull();
    }
}
