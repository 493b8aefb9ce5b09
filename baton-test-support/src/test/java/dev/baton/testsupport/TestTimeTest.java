package dev.baton.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class TestTimeTest {
    @Test
    void aBoundIsTheIdleValuePlusSlackStretchedAtMostTwice() {
        Duration expected = Duration.ofSeconds(1);
        Duration bound = TestTime.bound(expected);
        assertThat(bound)
                .isBetween(
                        expected.plus(TestTime.SLACK),
                        expected.plus(TestTime.SLACK).multipliedBy(2));
        assertThat(TestTime.stretch()).isBetween(1.0, 2.0);
    }

    @Test
    void bulkWorkGrowsWithTheGrantsFromTheSlack() {
        assertThat(TestTime.bulkWork(0)).isEqualTo(TestTime.SLACK);
        assertThat(TestTime.bulkWork(800).minus(TestTime.bulkWork(400)))
                .isEqualTo(TestTime.HAND_OVER.multipliedBy(400));
    }

    @Test
    void aStopwatchAllowsTheIdleBoundPlusTheStallAtMostFourTimesIt() {
        TestTime.Stopwatch watch = TestTime.stopwatch();
        Duration idle = Duration.ofMillis(100);
        assertThat(watch.allows(idle)).isBetween(idle, idle.multipliedBy((long) TestTime.MAX_STRETCH));
        assertThat(watch.hasPassed(Duration.ofHours(1))).isFalse();
        assertThat(watch.toString()).contains("ms of it with runnable tasks waiting for a core");
    }

    @Test
    void aConditionThatNeverHoldsFailsNamingWhatWasAwaited() {
        assertThatThrownBy(() -> Await.condition("the impossible", Duration.ofMillis(20), () -> false))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("the impossible")
                .hasMessageContaining("PT0.02S");
    }

    @Test
    void aResultIsReturnedAndAFailureIsPassedOn() throws Exception {
        assertThat(Await.result(CompletableFuture.completedFuture("done"), TestTime.grant()))
                .isEqualTo("done");
        assertThatThrownBy(() ->
                        Await.result(CompletableFuture.failedFuture(new IllegalStateException("no")), TestTime.grant()))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Await.result(new CompletableFuture<>(), Duration.ofMillis(20)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("no result within PT0.02S");
    }
}
