package dev.baton.tck;

import static dev.baton.tck.KitTime.LEASE;
import static dev.baton.tck.KitTime.SLACK;
import static dev.baton.tck.KitTime.TAKE_OVER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testsupport.ForkedJava;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kit's leader-election property ({@link LockBackendContract.LeaderElection}), with two
 * candidates in two child JVMs ({@link ForkedCandidate}): a leader killed with SIGKILL is succeeded
 * within its lease with a higher epoch; a leader stopped with SIGSTOP past its lease is succeeded, and
 * told it was revoked when it runs again, after which it stands again; a leader that closes its
 * candidacy hands over at once, long before its lease would have run out.
 */
abstract class LeadershipProperty {
    private static final Logger log = LoggerFactory.getLogger(LeadershipProperty.class);
    private static final Duration START = Duration.ofSeconds(60);

    private final LockBackendContract contract;

    LeadershipProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    /** A forked candidate; each line it prints is queued with the time it arrived. */
    private static final class Candidate implements AutoCloseable {
        record Line(String text, long nanos) {}

        private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
        private final ForkedJava process;

        Candidate(String uri, String name, Duration lease) {
            this.process = ForkedJava.start(
                    ForkedCandidate.class.getName(),
                    List.of(),
                    List.of(uri, name, Long.toString(lease.toMillis())),
                    text -> lines.add(new Line(text, System.nanoTime())));
        }

        /** Waits for a line starting with {@code prefix}; fails with the child's stderr. */
        Line await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Line line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("candidate " + process.pid() + " printed no '" + prefix + "' within "
                            + timeout + " (alive=" + process.isAlive() + "); its stderr:\n" + process.stderrTail());
                }
                if (line.text.startsWith(prefix)) {
                    return line;
                }
            }
        }

        long awaitElected(Duration timeout) throws InterruptedException {
            return Long.parseLong(await("ELECTED ", timeout).text.substring("ELECTED ".length()));
        }

        @Override
        public void close() throws InterruptedException {
            process.kill(); // ends a stopped child too
            process.close();
        }
    }

    private Candidate candidate(String name, Duration lease) throws InterruptedException {
        Candidate candidate = contract.track(new Candidate(contract.fixture().uri(), name, lease));
        candidate.await("STANDING", START);
        return candidate;
    }

    /** Starts a leader, then a second candidate that stands behind it; returns both and the epoch. */
    private Candidate[] leaderAndFollower(String name, Duration lease, long[] epoch) throws InterruptedException {
        Candidate leader = candidate(name, lease);
        epoch[0] = leader.awaitElected(START);
        Candidate follower = candidate(name, lease);
        return new Candidate[] {leader, follower};
    }

    @Test
    void aLeaderKilledWithSigkillIsSucceededWithinItsLeaseWithAHigherEpoch() throws Exception {
        Duration lease = contract.lease(LEASE);
        long[] epoch = new long[1];
        Candidate[] both = leaderAndFollower(contract.lockName(), lease, epoch);

        long stalls = MachineStalls.mark();
        long killedAt = System.nanoTime();
        both[0].process.kill();
        Duration bound = contract.fixture().freedAfter(lease).plus(TAKE_OVER);
        Candidate.Line elected = both[1].await("ELECTED ", bound.plus(SLACK));
        long took = TimeUnit.NANOSECONDS.toMillis(elected.nanos - killedAt);
        long stalled = MachineStalls.millisSince(stalls);
        log.info(
                "{}: leader killed, successor elected after {} ms (lease {} ms, machine stalls {} ms)",
                contract.fixture().name(),
                took,
                lease.toMillis(),
                stalled);
        assertThat(Long.parseLong(elected.text.substring("ELECTED ".length()))).isGreaterThan(epoch[0]);
        assertThat(took)
                .as(
                        "ms from kill -9 to the successor's election (the lock is freed after %s; bound %s plus"
                                + " the %d ms during which the machine kept runnable tasks waiting for a core)",
                        contract.fixture().freedAfter(lease), bound, stalled)
                .isLessThanOrEqualTo(bound.toMillis() + stalled);
    }

    @Test
    void aPausedLeaderIsSucceededToldItWasRevokedWhenItRunsAgainAndStandsAgain() throws Exception {
        Duration lease = contract.lease(LEASE);
        long[] epoch = new long[1];
        Candidate[] both = leaderAndFollower(contract.lockName(), lease, epoch);
        Candidate paused = both[0];

        long stoppedAt = System.nanoTime();
        paused.process.stop();
        Candidate.Line elected = both[1].await("ELECTED ", lease.plus(SLACK));
        long successor = Long.parseLong(elected.text.substring("ELECTED ".length()));
        long took = TimeUnit.NANOSECONDS.toMillis(elected.nanos - stoppedAt);
        assertThat(successor).isGreaterThan(epoch[0]);
        assertThat(took)
                .as("ms from SIGSTOP to the successor's election")
                .isLessThanOrEqualTo(lease.plus(SLACK).toMillis());

        long resumedAt = System.nanoTime();
        paused.process.resume();
        Candidate.Line revoked = paused.await("REVOKED ", SLACK);
        assertThat(revoked.text).isEqualTo("REVOKED " + epoch[0] + " LOST");
        log.info(
                "{}: leader paused, successor elected after {} ms, the paused one told {} ms after SIGCONT (lease {} ms)",
                contract.fixture().name(),
                took,
                TimeUnit.NANOSECONDS.toMillis(revoked.nanos - resumedAt),
                lease.toMillis());

        // The deposed leader stood again, behind the successor: it leads once the successor resigns.
        assertThat(paused.lines)
                .as("what the deposed leader printed while the successor leads")
                .noneMatch(line -> line.text.startsWith("ELECTED "));
        both[1].process.closeInput();
        both[1].await("CLOSED", SLACK);
        assertThat(paused.awaitElected(SLACK)).isGreaterThan(successor);
    }

    @Test
    void aLeaderThatClosesHandsOverAtOnceNotWhenItsLeaseRunsOut() throws Exception {
        // A lease far longer than the time allowed for the hand-over: only a release explains it.
        // Four times, not five: Azure Blob leases last 15 s to 60 s, and 5 x 15 s is refused.
        Duration lease = contract.lease(LEASE).multipliedBy(4);
        long[] epoch = new long[1];
        Candidate[] both = leaderAndFollower(contract.lockName(), lease, epoch);

        long closedAt = System.nanoTime();
        both[0].process.closeInput();
        Candidate.Line elected = both[1].await("ELECTED ", SLACK);
        both[0].await("REVOKED " + epoch[0] + " RESIGNED", SLACK);
        long took = TimeUnit.NANOSECONDS.toMillis(elected.nanos - closedAt);
        log.info(
                "{}: leader closed, successor elected after {} ms (lease {} ms)",
                contract.fixture().name(),
                took,
                lease.toMillis());
        assertThat(Long.parseLong(elected.text.substring("ELECTED ".length()))).isGreaterThan(epoch[0]);
        assertThat(took).as("ms from close to the successor's election").isLessThan(lease.toMillis());
    }
}
