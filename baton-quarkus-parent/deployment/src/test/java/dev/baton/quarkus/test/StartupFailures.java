package dev.baton.quarkus.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockConfigurationException;
import java.util.function.Consumer;

/** The check of a startup that a bad configuration stops: Baton's one-line message at the root. */
final class StartupFailures {

    private StartupFailures() {}

    static Consumer<Throwable> failsWith(String... fragments) {
        return thrown -> {
            Throwable root = thrown;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            assertThat(root).isInstanceOf(LockConfigurationException.class);
            assertThat(root.getMessage()).doesNotContain("\n");
            for (String fragment : fragments) {
                assertThat(root.getMessage()).contains(fragment);
            }
        };
    }
}
