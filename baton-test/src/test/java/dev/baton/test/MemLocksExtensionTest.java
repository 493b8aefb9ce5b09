package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.baton.LockClient;
import dev.baton.LockUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;

/** {@link MemLocksExtension}, run on sample test classes through JUnit's own engine. */
class MemLocksExtensionTest {
    static final List<LockClient> CLIENTS = new CopyOnWriteArrayList<>();
    static final List<String> NAMESPACES = new CopyOnWriteArrayList<>();
    static final List<Boolean> SAME_IN_LIFECYCLE = new CopyOnWriteArrayList<>();

    /** Two tests that each hold a lock of one name and leave it held. */
    @ExtendWith(MemLocksExtension.class)
    static class Sample {
        private LockClient before;
        private MemFaults beforeFaults;

        @BeforeEach
        void setUp(LockClient client, MemFaults faults) {
            before = client;
            beforeFaults = faults;
        }

        @Test
        void first(LockClient client, MemFaults faults) {
            holdTheSameName(client, faults);
        }

        @Test
        void second(LockClient client, MemFaults faults) {
            holdTheSameName(client, faults);
        }

        private void holdTheSameName(LockClient client, MemFaults faults) {
            SAME_IN_LIFECYCLE.add(client == before && faults == beforeFaults);
            CLIENTS.add(client);
            NAMESPACES.add(faults.namespace());
            assertThat(faults.uri()).isEqualTo("mem://" + faults.namespace());
            client.lock("shared").acquire(Duration.ZERO); // no other test's holder: free at once
        }

        @AfterEach
        void tearDown(LockClient client) {
            SAME_IN_LIFECYCLE.add(client == before);
        }
    }

    @Test
    void eachTestGetsItsOwnNamespaceAndAClientClosedAfterIt() {
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(Sample.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.started(2).succeeded(2));

        assertThat(NAMESPACES).hasSize(2).doesNotHaveDuplicates();
        assertThat(NAMESPACES).allSatisfy(name -> assertThat(name).matches("(first|second)-[0-9a-f]{8}"));
        assertThat(SAME_IN_LIFECYCLE).hasSize(4).containsOnly(true);
        assertThat(CLIENTS).allSatisfy(client -> assertThatThrownBy(
                        () -> client.lock("shared").tryAcquire())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("closed"));
        assertThat(NAMESPACES)
                .as("forgotten: a namespace of that name starts empty")
                .allSatisfy(name -> assertThat(MemLocks.faults(name).events()).isEmpty());
        NAMESPACES.forEach(MemLocks::forget);
    }
}
