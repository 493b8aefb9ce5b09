package dev.baton.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ZooKeeperLockQueueTest {
    private static final String OWNER = "0123456789abcdef0123456789abcdef";

    @Test
    void protectionPrefixIsTheUuidOfTheOwnerIdAsCuratorWritesIt() {
        Random random = new Random(42);
        for (int i = 0; i < 1_000; i++) {
            UUID uuid = new UUID(random.nextLong(), random.nextLong());
            String hex = uuid.toString().replace("-", "");
            String id = i % 2 == 0 ? hex : hex.toUpperCase(Locale.ROOT);
            assertThat(ZooKeeperLockQueue.protectionPrefix(id)).isEqualTo("_c_" + uuid + "-");
        }
        // Not a hex id: a name-based UUID of the id.
        assertThat(ZooKeeperLockQueue.protectionPrefix("owner-1"))
                .isEqualTo("_c_" + UUID.nameUUIDFromBytes("owner-1".getBytes(StandardCharsets.UTF_8)) + "-");
        assertThat(ZooKeeperLockQueue.protectionPrefix("owner-1"))
                .startsWith("_c_")
                .endsWith("-")
                .hasSize(40);
    }

    @Test
    void eachKindGetsTheMarkerOfItsCuratorRecipe() {
        assertThat(ZooKeeperLockQueue.nodePrefix(OWNER, LockKind.MUTEX))
                .isEqualTo("_c_01234567-89ab-cdef-0123-456789abcdef-lock-");
        assertThat(ZooKeeperLockQueue.nodePrefix(OWNER, LockKind.WRITE))
                .isEqualTo("_c_01234567-89ab-cdef-0123-456789abcdef-__WRIT__");
        assertThat(ZooKeeperLockQueue.nodePrefix(OWNER, LockKind.READ))
                .isEqualTo("_c_01234567-89ab-cdef-0123-456789abcdef-__READ__");
    }

    @Test
    void nodesOfEveryMarkerSortBySequenceAndEveryNodeButAReadIsExclusive() {
        List<String> sorted = ZooKeeperLockQueue.sorted(List.of(
                "_c_b-__WRIT__0000000003",
                "_c_a-lock-0000000002",
                "_c_c-__READ__0000000001",
                "_c_d-__READ__0000000004"));
        assertThat(sorted)
                .containsExactly(
                        "_c_c-__READ__0000000001",
                        "_c_a-lock-0000000002",
                        "_c_b-__WRIT__0000000003",
                        "_c_d-__READ__0000000004");
        assertThat(ZooKeeperLockQueue.holders(sorted)).containsExactly("_c_c-__READ__0000000001");
        assertThat(ZooKeeperLockQueue.blockers(sorted, 2, false))
                .as("a writer waits for everything before it")
                .containsExactly("_c_c-__READ__0000000001", "_c_a-lock-0000000002");
        assertThat(ZooKeeperLockQueue.blockers(sorted, 3, true))
                .as("a reader waits for the mutex node and the write node, not the reader")
                .containsExactly("_c_a-lock-0000000002", "_c_b-__WRIT__0000000003");
        assertThat(ZooKeeperLockQueue.holders(List.of("_c_a-lock-0000000002", "_c_c-__READ__0000000003")))
                .as("a mutex node holds alone")
                .containsExactly("_c_a-lock-0000000002");
    }

    @Test
    void childrenWithoutASequenceAreNoQueueEntries() {
        // Curator's InterProcessSemaphoreMutex keeps these two nodes under its path.
        assertThat(ZooKeeperLockQueue.sorted(List.of("locks", "_c_a-lock-0000000002", "leases")))
                .containsExactly("_c_a-lock-0000000002");
        assertThat(ZooKeeperLockQueue.holders(ZooKeeperLockQueue.sorted(List.of("locks", "leases"))))
                .isEmpty();
    }
}
