package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link LeadershipEvents#shutdown(long)} returns once the listener thread has ended, not only once
 * its executor counts as terminated (which it does while its last thread is still on its way out,
 * so a caller that looks for the client's threads right after close, as {@code
 * closingTheClientResignsItsCandidaciesAndEndsTheirThreads} does, could still find the listener).
 */
class LeadershipEventsTest {
    @Test
    void afterShutdownTheListenerThreadHasEnded() {
        for (int i = 0; i < 2_000; i++) {
            String name = "events-test-" + i;
            LeadershipEvents events = new LeadershipEvents("test", name);
            events.elected(1); // starts the listener thread: no listeners, so the event is quick

            assertThat(events.shutdown(5_000)).isTrue();

            Set<String> alive = Thread.getAllStackTraces().keySet().stream()
                    .map(Thread::getName)
                    .filter(name::equals)
                    .collect(Collectors.toSet());
            assertThat(alive).as("round %d", i).isEmpty();
        }
    }
}
