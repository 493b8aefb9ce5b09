package dev.baton.spi;

import dev.baton.LockKind;
import java.util.Objects;

/**
 * How a request waits on one backend while another owner holds the lock. A backend declares it per
 * kind of request ({@link LockBackend#waiting(LockKind)}); the core drives every wait through it, for
 * the blocking API and the asynchronous one alike, so a backend writes its waiting once.
 *
 * <p>Three forms:
 *
 * <ul>
 *   <li>{@linkplain #polling(ReleaseNotifications) Polling}: the core retries {@link
 *       LockBackend#tryAcquire} with backoff, from a timer shared by the client's waiters, and retries
 *       at once when the backend's {@link ReleaseNotifications} hint that the lock was released. No
 *       thread is held between two attempts.
 *   <li>{@linkplain #queue(WaitQueue) Queue}: the backend keeps a line of waiters on the server (a
 *       ZooKeeper or etcd queue, a Redis list, a waiters table) and tells the core when a waiter's
 *       attempt may succeed. No thread is held between two attempts.
 *   <li>{@linkplain #blocking(BlockingWait, int) Blocking}: the wait is one blocking call that pins a
 *       connection (an advisory lock, a row lock in an open transaction). The blocking API runs it on
 *       the caller's thread; the asynchronous API on a pool of at most {@link #concurrency()} threads,
 *       which should be no larger than the connections the backend can pin at once.
 * </ul>
 *
 * <p>Why a value and not three more methods on {@link LockBackend}: the form is one choice per kind,
 * and a value can grow (a fallback poll interval, a limit) without breaking backends.
 */
public final class Waiting {
    /** The three ways of waiting. */
    public enum Form {
        /** Retried attempts with backoff, woken early by release notifications. */
        POLLING,
        /** A line of waiters kept by the backend, which wakes the waiter whose turn may have come. */
        QUEUE,
        /** One blocking call per wait, on a thread of its own. */
        BLOCKING
    }

    private static final Waiting POLLING_ONLY = new Waiting(Form.POLLING, ReleaseNotifications.none(), null, null, 0);

    private final Form form;
    private final ReleaseNotifications notifications;
    private final WaitQueue queue;
    private final BlockingWait blockingWait;
    private final int concurrency;

    private Waiting(
            Form form,
            ReleaseNotifications notifications,
            WaitQueue queue,
            BlockingWait blockingWait,
            int concurrency) {
        this.form = form;
        this.notifications = notifications;
        this.queue = queue;
        this.blockingWait = blockingWait;
        this.concurrency = concurrency;
    }

    /**
     * Polling without notifications: attempts paced by the client's backoff only.
     *
     * @return the polling form
     */
    public static Waiting polling() {
        return POLLING_ONLY;
    }

    /**
     * Polling, woken early by the backend's release notifications (asked at each wait whether they
     * are {@linkplain ReleaseNotifications#supported() supported}, which may change once a backend
     * knows its server).
     *
     * @param notifications the backend's release hints; {@link ReleaseNotifications#none()} for none
     * @return the polling form
     * @throws NullPointerException if {@code notifications} is null
     */
    public static Waiting polling(ReleaseNotifications notifications) {
        Objects.requireNonNull(notifications, "notifications");
        return new Waiting(Form.POLLING, notifications, null, null, 0);
    }

    /**
     * A line of waiters kept by the backend.
     *
     * @param queue how a request enters, retries and leaves the line
     * @return the queue form
     * @throws NullPointerException if {@code queue} is null
     */
    public static Waiting queue(WaitQueue queue) {
        return new Waiting(Form.QUEUE, ReleaseNotifications.none(), Objects.requireNonNull(queue, "queue"), null, 0);
    }

    /**
     * One blocking call per wait.
     *
     * @param wait the call
     * @param concurrency the most calls the asynchronous API runs at once (the connections the backend
     *     can pin); at least 1. Asynchronous waiters beyond it wait in the core, holding no thread
     * @return the blocking form
     * @throws NullPointerException if {@code wait} is null
     * @throws IllegalArgumentException if {@code concurrency} is below 1
     */
    public static Waiting blocking(BlockingWait wait, int concurrency) {
        Objects.requireNonNull(wait, "wait");
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        return new Waiting(Form.BLOCKING, ReleaseNotifications.none(), null, wait, concurrency);
    }

    /**
     * Which of the three forms this is.
     *
     * @return the form
     */
    public Form form() {
        return form;
    }

    /**
     * The release hints of the polling form.
     *
     * @return the notifications; {@link ReleaseNotifications#none()} for the other forms
     */
    public ReleaseNotifications notifications() {
        return notifications;
    }

    /**
     * The line of the queue form.
     *
     * @return the queue
     * @throws IllegalStateException if this is not the queue form
     */
    public WaitQueue queue() {
        if (queue == null) {
            throw new IllegalStateException("not the queue form: " + form);
        }
        return queue;
    }

    /**
     * The call of the blocking form.
     *
     * @return the blocking call
     * @throws IllegalStateException if this is not the blocking form
     */
    public BlockingWait blockingWait() {
        if (blockingWait == null) {
            throw new IllegalStateException("not the blocking form: " + form);
        }
        return blockingWait;
    }

    /**
     * The most blocking calls the asynchronous API runs at once.
     *
     * @return at least 1 for the blocking form, 0 for the others
     */
    public int concurrency() {
        return concurrency;
    }

    @Override
    public String toString() {
        return "Waiting[" + form + (form == Form.BLOCKING ? ", concurrency " + concurrency : "") + "]";
    }
}
