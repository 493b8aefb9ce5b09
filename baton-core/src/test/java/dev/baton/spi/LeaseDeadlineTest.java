package dev.baton.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The local lease deadline backends with a wider server-side lease keep per held grant. */
class LeaseDeadlineTest {

    @Test
    void expiresOnceWhenTheDeadlinePassesAndCannotBeExtendedAfter() {
        LeaseDeadline deadline = new LeaseDeadline(100);
        assertThat(deadline.expireIfDue(99)).isFalse();
        assertThat(deadline.expired()).isFalse();
        assertThat(deadline.expireIfDue(100)).isTrue();
        assertThat(deadline.expired()).isTrue();
        assertThat(deadline.expireIfDue(200)).as("only once").isFalse();
        assertThat(deadline.extend(500)).isFalse();
    }

    @Test
    void extendOnlyMovesForward() {
        LeaseDeadline deadline = new LeaseDeadline(100);
        assertThat(deadline.extend(300)).isTrue();
        assertThat(deadline.extend(200)).isTrue();
        assertThat(deadline.expireIfDue(250)).isFalse();
        assertThat(deadline.expireIfDue(300)).isTrue();
    }

    @Test
    void aReleasedGrantNeverExpires() {
        LeaseDeadline deadline = new LeaseDeadline(100);
        deadline.release();
        assertThat(deadline.expireIfDue(1_000)).isFalse();
        assertThat(deadline.expired()).isFalse();
    }

    @Test
    void comparesNanoTimesAcrossTheirWrapAround() {
        LeaseDeadline deadline = new LeaseDeadline(Long.MIN_VALUE + 10);
        assertThat(deadline.expireIfDue(Long.MAX_VALUE - 10))
                .as("before the deadline, across the wrap")
                .isFalse();
        assertThat(deadline.expireIfDue(Long.MIN_VALUE + 10)).isTrue();
    }
}
