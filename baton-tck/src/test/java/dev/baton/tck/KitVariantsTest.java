package dev.baton.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * A class marked {@link KitVariant} runs the groups it names and skips the others' tests, visibly,
 * with a message naming the class that covers them; each group of the contract is one {@link
 * KitGroup}.
 */
class KitVariantsTest {

    /** Runs only BadInput; the unreachable backend makes that group's tests fail, so they visibly ran. */
    @KitVariant(of = BackendInFailuresTest.UnreachableBackendContract.class, runs = KitGroup.BAD_INPUT)
    static class BadInputOnlyVariant extends BackendInFailuresTest.UnreachableBackendContract {}

    @KitVariant(
            of = BackendInFailuresTest.UnreachableBackendContract.class,
            runs = {})
    static class NoGroupVariant extends BackendInFailuresTest.UnreachableBackendContract {}

    private static Events run(Class<?> contract, Class<?> group) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectNestedClass(List.of(contract), group))
                .execute()
                .testEvents();
    }

    @Test
    void aGroupTheVariantDoesNotNameIsSkippedTestByTestWithTheCoveringClass() {
        Events events = run(BadInputOnlyVariant.class, LockBackendContract.Renewal.class);
        assertThat(events.started().count()).isZero();
        assertThat(events.skipped().count()).isEqualTo(3);
        events.skipped().stream().forEach(event -> assertThat(event.getPayload(String.class))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .contains("BadInputOnlyVariant is a variant of UnreachableBackendContract")
                        .contains("RENEWAL takes the same path there")));
    }

    @Test
    void aGroupTheVariantNamesRuns() {
        Events events = run(BadInputOnlyVariant.class, LockBackendContract.BadInput.class);
        assertThat(events.skipped().count()).isZero();
        assertThat(events.started().count()).isEqualTo(5);
    }

    @Test
    void aVariantThatRunsNoGroupIsAConfigurationError() {
        Events events = run(NoGroupVariant.class, LockBackendContract.Reentrancy.class);
        assertThat(events.succeeded().count()).isZero();
        assertThat(events.failed().count()).isEqualTo(4);
        events.failed().stream().forEach(event -> assertThat(
                        event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable))
                .hasValueSatisfying(thrown -> assertThat(thrown)
                        .hasRootCauseInstanceOf(ExtensionConfigurationException.class)
                        .hasMessageContaining("runs no group")));
    }

    @Test
    void everyNestedGroupIsOneKitGroupAndEveryKitGroupOneNestedGroup() {
        List<Class<?>> nested = Arrays.stream(LockBackendContract.class.getDeclaredClasses())
                .filter(type -> type.isAnnotationPresent(Nested.class))
                .toList();
        assertThat(nested)
                .extracting(type -> KitGroup.of(type).orElseThrow().name().replace("_", ""))
                .containsExactlyInAnyOrderElementsOf(nested.stream()
                        .map(type -> type.getSimpleName().toUpperCase(java.util.Locale.ROOT))
                        .toList());
        assertThat(nested).hasSize(KitGroup.values().length);
    }
}
