package dev.baton.redis;

import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications.Subscription;
import dev.baton.spi.WaitQueue;
import dev.baton.spi.Waiting;

/**
 * Puts a request in a backend's line as the core does ({@link WaitQueue#enter}), or subscribes it to
 * the release hints where the backend polls, for tests that play the core's part: the test then attempts with {@code tryAcquire}, which serves a request in line by
 * its owner id, and closing the returned subscription leaves the line.
 */
final class InLine {
    private InLine() {}

    static Subscription enter(LockBackend backend, LockRequest request, Runnable wake) {
        Waiting waiting = backend.waiting(request.kind());
        if (waiting.form() != Waiting.Form.QUEUE) {
            return waiting.notifications().subscribe(request.name(), wake); // a polling waiter's hints
        }
        WaitQueue.Entry entry = waiting.queue().enter(request, wake);
        if (entry.grantedOnEntry().isPresent()) {
            throw new AssertionError(
                    "granted on entry: " + entry.grantedOnEntry().get());
        }
        return entry::leave;
    }
}
