package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockAdmin;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@code mem://} URIs: what they name, and the clear refusal of what they cannot. */
class MemUriTest {
    private static String fresh() {
        return "uri-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void clientsOfOneNamespaceShareItsLocksAndOtherNamespacesNeverMeet() {
        String namespace = fresh();
        try (LockClient one = Baton.connect("mem://" + namespace);
                LockClient two = Baton.connect("MEM://" + namespace);
                LockClient elsewhere = Baton.connect("mem://" + fresh())) {
            assertThat(one.backendName()).isEqualTo("mem (" + namespace + ")");
            try (Lease held = one.lock("job").acquire(Duration.ofSeconds(1))) {
                assertThat(two.lock("job").tryAcquire()).isEmpty();
                assertThat(elsewhere.lock("job").tryAcquire()).isPresent().get().satisfies(Lease::close);
            }
        } finally {
            MemLocks.forget(namespace);
        }
    }

    @Test
    void theClientNameParameterNamesTheHolder() {
        String namespace = fresh();
        try (LockClient client = Baton.connect("mem://" + namespace + "?clientName=billing");
                LockAdmin admin = Baton.admin("mem://" + namespace);
                Lease held = client.lock("job").acquire(Duration.ofSeconds(1))) {
            assertThat(admin.status("job").orElseThrow().holders().get(0).description())
                    .startsWith("billing on ");
        } finally {
            MemLocks.forget(namespace);
        }
    }

    @Test
    void malformedUrisAndOptionsAreRefusedNamingTheFix() {
        assertThatThrownBy(() -> Baton.connect("mem://"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("mem://app");
        assertThatThrownBy(() -> Baton.connect("mem://a b"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("letters, digits");
        assertThatThrownBy(() -> Baton.connect("mem://app?fiar=false"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("mem://app?fiar=false")
                .hasMessageContaining("did you mean 'fair'?");
        assertThatThrownBy(() -> Baton.connect("mem://app?size=3"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown option 'size'");
        assertThatThrownBy(() -> Baton.connect("mem://localhost/app"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("mem://<host>:<port>/<namespace>");
        assertThatThrownBy(() -> Baton.connect("mem://127.0.0.1:70000/app"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("70000");
        assertThatThrownBy(() -> Baton.connect("mem://127.0.0.1:7000/"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("namespace");
        assertThatThrownBy(() -> MemLocks.faults("a/b"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("a/b");
    }

    @Test
    void aServedNamespaceThatIsNotThereFailsAsAnUnreachableServerWould() {
        assertThatThrownBy(
                        () -> Baton.connect("mem://127.0.0.1:1/app").lock("x").tryAcquire())
                .isInstanceOf(dev.baton.LockUnavailableException.class)
                .hasMessageContaining("cannot reach the mem server");
    }
}
