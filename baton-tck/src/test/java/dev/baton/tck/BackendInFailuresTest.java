package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * A failing kit test names its backend (the message starts with the test class and the fixture) and
 * carries what the fixture could tell about the server at that moment.
 */
class BackendInFailuresTest {

    /** A backend whose every connection fails, run by the kit as a real backend module would. */
    static class UnreachableBackendContract extends LockBackendContract {
        @Override
        protected LockBackendFixture fixture() {
            return new LockBackendFixture() {
                @Override
                public String name() {
                    return "unreachable test backend";
                }

                @Override
                public String uri() {
                    return "unreachable://127.0.0.1:1";
                }

                @Override
                public InetSocketAddress serverAddress() {
                    return new InetSocketAddress("127.0.0.1", 1);
                }

                @Override
                public Set<Capability> capabilities() {
                    return Set.of();
                }

                @Override
                public LockClient connect(LockOptions options) {
                    throw new LockUnavailableException("no server at 127.0.0.1:1");
                }

                @Override
                public String serverState() {
                    return "session 7 waits for session 3";
                }
            };
        }
    }

    @Test
    void aFailingKitTestCarriesTheBackendInItsMessage() {
        List<Event> failures = EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedMethod(
                        List.of(UnreachableBackendContract.class),
                        LockBackendContract.BadInput.class,
                        "badNamesAreRejectedWithClearMessages"))
                .execute()
                .testEvents()
                .failed()
                .list();

        assertThat(failures).hasSize(1);
        Throwable thrown = failures.get(0)
                .getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
                .orElseThrow();
        assertThat(thrown)
                .hasMessageStartingWith("[UnreachableBackendContract: unreachable test backend] ")
                .hasMessageContaining("no server at 127.0.0.1:1")
                .hasCauseInstanceOf(LockUnavailableException.class);
        assertThat(thrown.getStackTrace()).isEqualTo(thrown.getCause().getStackTrace());
        assertThat(thrown.getSuppressed()).singleElement().satisfies(state -> assertThat(state)
                .hasMessage("the server when the test failed:\nsession 7 waits for session 3"));
    }
}
