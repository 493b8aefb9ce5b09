package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Each starter runs on its own Spring Boot line only, and on the other one fails at start naming the
 * starter to use (baton-samples' wrong-boot-line sample starts a real Boot 3.5 application with the
 * Boot 4 starter).
 */
class BootLineTest {
    private final String otherLine = BootLine.MAJOR == 4 ? "3.5.7" : "4.0.7";

    @Test
    void theStarterRunsOnTheBootItWasBuiltFor() {
        assertThat(SpringBootVersion.getVersion()).startsWith(BootLine.MAJOR + ".");
        assertThatNoException().isThrownBy(() -> WrongBootLineException.require(SpringBootVersion.getVersion()));
        assertThatNoException().isThrownBy(() -> WrongBootLineException.require(null));
    }

    @Test
    void onTheOtherLineItFailsNamingTheStarterForThatLine() {
        assertThatThrownBy(() -> WrongBootLineException.require(otherLine))
                .isInstanceOf(WrongBootLineException.class)
                .hasMessage("Baton: " + BootLine.ARTIFACT + " is built for Spring Boot " + BootLine.MAJOR
                        + ", but this application runs Spring Boot " + otherLine + "; depend on "
                        + BootLine.OTHER_ARTIFACT + " (same version) instead of " + BootLine.ARTIFACT);
        WrongBootLineException wrong =
                new WrongBootLineException("Baton: " + BootLine.ARTIFACT + " is built for another line");
        FailureAnalysis analysis = new BatonFailureAnalyzer().analyze(wrong);
        assertThat(analysis.getDescription()).isEqualTo(wrong.getMessage());
        assertThat(analysis.getAction())
                .startsWith("Replace " + BootLine.ARTIFACT + " with " + BootLine.OTHER_ARTIFACT + " in your build");
    }
}
