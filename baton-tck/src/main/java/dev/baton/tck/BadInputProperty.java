package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.spi.UriOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The kit's bad-input property ({@link LockBackendContract.BadInput}): bad names and options are
 * refused with clear messages, a misspelt URI option is refused when the client is built (with the
 * nearest name), the longest and unusual valid names work, and a lease shorter than the backend
 * accepts ({@link LockBackendFixture#minimumLeaseTime()}) is refused.
 */
abstract class BadInputProperty {
    private final LockBackendContract contract;

    BadInputProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void badNamesAreRejectedWithClearMessages() {
        LockClient client = contract.client();
        String tooLong = "é".repeat(257); // 514 UTF-8 bytes
        for (String bad : new String[] {null, "", tooLong, "line\nbreak", "nul\u0000", "tab\tname", "\ud800"}) {
            assertThatThrownBy(() -> client.lock(bad))
                    .as("name %s", bad == null ? "null" : bad.length() > 20 ? bad.substring(0, 20) : bad)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("512 UTF-8 bytes")
                    .hasMessageContaining(client.backendName());
            assertThatThrownBy(() -> client.readWriteLock(bad)).isInstanceOf(LockConfigurationException.class);
        }
    }

    @Test
    void longestAndUnusualNamesWork() {
        LockClient client = contract.client();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        List<String> names = new ArrayList<>(List.of(
                ("x" + suffix).repeat(1) + "é".repeat((512 - 9) / 2), // 9 + 502 = 511 bytes
                "a".repeat(512 - suffix.length()) + suffix, // exactly 512 bytes
                "../../etc/passwd-" + suffix,
                "ключ/с пробелом:*?'\"%_" + suffix,
                "emoji-\uD83D\uDD12-" + suffix));
        for (String name : names) {
            try (Lease lease = client.lock(name).acquire(contract.grant())) {
                assertThat(lease.name()).isEqualTo(name);
                assertThat(contract.client().lock(name).tryAcquire())
                        .as("held: %s", name)
                        .isEmpty();
            }
        }
        // Names that differ only after a long common prefix are different locks.
        String prefix = "p".repeat(500) + suffix;
        try (Lease one = client.lock(prefix + "1").acquire(contract.grant());
                Lease two = contract.client().lock(prefix + "2").acquire(contract.grant())) {
            assertThat(one.isValid() && two.isValid()).isTrue();
        }
    }

    @Test
    void aLeaseShorterThanTheBackendAcceptsIsRefused() {
        Duration minimum = contract.fixture().minimumLeaseTime();
        assumeFalse(minimum.isZero(), "the backend has no shortest lease time (LockBackendFixture.minimumLeaseTime())");
        LockOptions tooShort = contract.options().withLeaseTime(minimum.minusMillis(1));
        String name = contract.lockName();
        assertThatThrownBy(() -> contract.fixture().connect(tooShort))
                .as("a client whose lease time is shorter than %s", minimum)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("leaseTime");
        DistributedLock lock = contract.client().lock(name, tooShort);
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
                .as("a lock whose lease time is shorter than %s", minimum)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("leaseTime")
                .hasMessageContaining(name);
        try (Lease lease = contract.client().lock(name).acquire(contract.grant())) {
            assertThat(lease.isValid())
                    .as("the refused attempt left nothing behind")
                    .isTrue();
        }
    }

    /**
     * Every backend checks its URI's options by {@link UriOptions}' rule, before any I/O: a misspelt
     * one names the nearest, and one of the client's {@link LockOptions} is told where it is set.
     */
    @Test
    void aMisspeltUriOptionIsRefusedWhenTheClientIsBuilt() {
        String misspelt = UriOptions.with(contract.fixture().uri(), "fiar", "false");
        assertThatThrownBy(() -> Baton.connect(misspelt, contract.options()).close())
                .as("%s", misspelt)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'fiar'")
                .hasMessageContaining("did you mean 'fair'?")
                .hasMessageNotContaining("\n");
        String leaseTime = UriOptions.with(contract.fixture().uri(), "leaseTime", "10s");
        assertThatThrownBy(() -> Baton.connect(leaseTime, contract.options()).close())
                .as("%s", leaseTime)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("LockOptions.builder().leaseTime(...)");
    }

    @Test
    void badOptionsAreRejectedWithClearMessages() {
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ZERO))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("leaseTime")
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(null))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().operationTimeout(Duration.ofMillis(-5)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> contract.client().lock(contract.lockName(), null))
                .isInstanceOf(LockConfigurationException.class);
    }
}
