package dev.baton.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockUnavailableException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** What a call that gave up says, whatever the machine's speed: the answers decide, not the timing. */
class AzureBlobCallsTest {
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AzureBlobCalls calls = new AzureBlobCalls(
            "azure-blob (devstoreaccount1/locks)",
            AzureBlobUri.parse("azblob://devstoreaccount1/locks?accountKey=a2V5", Map.of()),
            "http://127.0.0.1:1/devstoreaccount1",
            Duration.ofMillis(300),
            closed::get);

    @Test
    void aRefusedServiceIsReportedAsUnreachableEvenWhenTheLastAttemptRanOutOfTime() {
        // On a busy machine the attempt under way when the deadline falls has no answer yet.
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> calls.call(
                        "job",
                        "acquiring the lease",
                        () -> attempts.getAndIncrement() == 0
                                ? Mono.error(new ConnectException("Connection refused"))
                                : Mono.never()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("Baton lock 'job' on azure-blob")
                .hasMessageContaining("cannot reach the blob service at http://127.0.0.1:1/devstoreaccount1")
                .hasMessageContaining("check the endpoint, the network");
        assertThat(attempts).hasValue(2);
    }

    @Test
    void aServiceThatNeverAnswersIsReportedAsSilent() {
        assertThatThrownBy(() -> calls.call("job", "acquiring the lease", Mono::never))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("did not answer within the operation timeout (PT0.3S)");
    }

    @Test
    void aCallOnAClosedBackendFailsAtOnceInsteadOfRetryingUntilTheDeadline() {
        // Once closed, the transport's event loop refuses every request: retrying cannot succeed.
        AtomicInteger attempts = new AtomicInteger();
        closed.set(true);
        assertThatThrownBy(() -> calls.call("job", "acquiring the lease", () -> {
                    attempts.incrementAndGet();
                    return Mono.error(new java.util.concurrent.RejectedExecutionException("event executor terminated"));
                }))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessage("Baton lock 'job' on azure-blob (devstoreaccount1/locks): acquiring the lease failed: the"
                        + " client was closed");
        assertThat(attempts).hasValue(0);
    }
}
