package dev.baton.tck;

import static dev.baton.tck.KitTime.LEASE;
import static dev.baton.tck.KitTime.SLACK;
import static dev.baton.tck.KitTime.TAKE_OVER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Leadership;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kit's stopped-holder property ({@link LockBackendContract.StoppedHolder}): a process stopped
 * (SIGSTOP) while it holds a lock and leads, until another client was granted that lock and another
 * candidate elected, answers {@code isValid() == false} and {@code isLeader() == false} on its first
 * calls after it runs again. Whatever frees a grant on the server (a lease, a session, a TTL, an idle
 * timeout), the holder's validity must have run out by then: a yes would be a second holder beside
 * the new one. One forked worker per run holds both ({@link ForkedLockClient}'s {@code hold-and-lead},
 * {@link ForkedJvm}).
 */
abstract class StoppedHolderProperty {
    private static final Logger log = LoggerFactory.getLogger(StoppedHolderProperty.class);

    private final LockBackendContract contract;

    StoppedHolderProperty(LockBackendContract contract) {
        this.contract = contract;
    }

    @Test
    void aHolderAndALeaderStoppedUntilOthersTookOverSayNoOnTheirFirstCallsAfterResuming() throws Exception {
        Duration lease = contract.lease(LEASE);
        String name = contract.lockName();
        ForkedJvm child = contract.track(
                ForkedJvm.start("hold-and-lead", contract.fixture().uri(), name, Long.toString(lease.toMillis())));
        long token = Long.parseLong(child.awaitLine("ACQUIRED ", ColdStart.BOUND));
        long epoch = Long.parseLong(child.awaitLine("ELECTED ", ColdStart.BOUND));

        // This JVM's driver warmed up (as the child's), and the client's first call made, before the
        // stop: a cold start on a loaded machine must not count against the take-over.
        ColdStart.warmUp(contract.fixture().uri(), lease);
        LockClient client = contract.client(ForkedCandidate.options(lease));
        assertThat(client.lock(name).tryAcquire()).as("held by the child").isEmpty();
        BlockingQueue<String> follower = new LinkedBlockingQueue<>();
        Leadership successor =
                contract.track(ForkedCandidate.stand(client, name + ForkedLockClient.LEADERSHIP_SUFFIX, follower::add));
        Duration takeOver = contract.fixture().freedAfter(lease).plus(TAKE_OVER).plus(SLACK);

        long stoppedAt = System.nanoTime();
        child.stop();
        Future<Lease> taken = contract.inThread(() -> client.lock(name).acquire(takeOver));
        Lease next = taken.get(takeOver.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS);
        String elected = Await.next(
                follower,
                line -> line.startsWith("ELECTED "),
                takeOver,
                () -> "no successor elected within " + takeOver + " of stopping the leader");
        long grantedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
        assertThat(next.fencingToken()).isGreaterThan(token);
        assertThat(Long.parseLong(elected.substring("ELECTED ".length()))).isGreaterThan(epoch);

        // Told to ask while it is stopped: the questions go out the moment it runs again, racing its
        // renewal and connection threads, which may learn of the loss a few milliseconds later.
        child.finish();
        child.resume();
        String asked = child.awaitLine("ASKED ", SLACK);
        log.info(
                "{}: holder stopped {} ms until another client held the lock and led (lease {} ms); it then said {}",
                contract.fixture().name(),
                grantedAfter,
                lease.toMillis(),
                asked);
        assertThat(asked)
                .as(
                        "the first isValid() and isLeader() of a holder and leader stopped until another client"
                                + " was granted its lock (token %d after %d) and elected (%s after epoch %d),"
                                + " %d ms after the stop (lease %s)",
                        next.fencingToken(), token, elected, epoch, grantedAfter, lease)
                .isEqualTo("valid=false leader=false");
        assertThat(next.isValid()).as("the new holder's lease").isTrue();
        assertThat(successor.isLeader()).as("the new leader").isTrue();
        next.close();
    }
}
