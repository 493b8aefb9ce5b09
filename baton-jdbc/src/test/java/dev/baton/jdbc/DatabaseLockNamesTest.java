package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.jdbc.internal.AdvisoryKeys;
import dev.baton.jdbc.internal.PgNotifications;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How lock and table names become MariaDB named-lock names and PostgreSQL channels. */
class DatabaseLockNamesTest {

    @Test
    void shortLowerCaseNamesStayReadable() {
        assertThat(AdvisoryKeys.serverName("baton.baton_locks", "invoice-42"))
                .isEqualTo("baton.baton_locks:invoice-42");
        String exactly64 = "n".repeat(64 - "baton.baton_locks:".length());
        assertThat(AdvisoryKeys.serverName("baton.baton_locks", exactly64)).isEqualTo("baton.baton_locks:" + exactly64);
    }

    @Test
    void longOrCaseSensitiveNamesAreHashedToDistinctNamesOfAtMost64Characters() {
        // GET_LOCK folds case and allows 64 characters: such names must not be used as they are.
        List<String> names = List.of(
                "Invoice-42",
                "invoice-42 ",
                "n".repeat(64 - "baton.baton_locks:".length() + 1),
                "é",
                "ключ",
                "a".repeat(512),
                "a".repeat(511) + "b");
        Set<String> serverNames = new HashSet<>();
        for (String name : names) {
            String serverName = AdvisoryKeys.serverName("baton.baton_locks", name);
            assertThat(serverName).startsWith(AdvisoryKeys.HASHED_PREFIX);
            assertThat(serverName).hasSize(64).matches("baton#[0-9a-f]{58}");
            serverNames.add(serverName);
        }
        assertThat(serverNames).as("distinct").hasSize(names.size());
        assertThat(AdvisoryKeys.serverName("baton.baton_locks", "Invoice-42"))
                .isNotEqualTo(AdvisoryKeys.serverName("baton.baton_locks", "invoice-42"))
                .isNotEqualTo(AdvisoryKeys.serverName("other.baton_locks", "Invoice-42"));
    }

    @Test
    void eachClientListensOnAChannelOfItsOwnThatFitsAnIdentifier() {
        PgNotifications one = new PgNotifications(() -> "one", null, null, Duration.ofSeconds(1), () -> true);
        PgNotifications two = new PgNotifications(() -> "two", null, null, Duration.ofSeconds(1), () -> true);
        assertThat(one.channel()).matches("baton_w_[0-9a-f]{24}").isNotEqualTo(two.channel());
        assertThat(one.channel().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(63);
    }
}
