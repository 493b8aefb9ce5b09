package dev.baton.jdbc.internal;

import dev.baton.LockKind;
import dev.baton.spi.LockRequest;
import dev.baton.spi.ReleaseNotifications;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release notifications of the {@code table} and {@code optimistic} strategies on PostgreSQL, and of
 * every strategy's semaphore permits ({@code JdbcPermits}), over LISTEN/NOTIFY, waking the next
 * waiting client rather than all of them.
 *
 * <p>Wire: each client LISTENs on a channel of its own ({@link #channel()}, {@code baton_w_} and 24
 * random hex digits). A waiter whose attempt failed while this listener is up writes that channel
 * into the lock row's {@code waiter} column if it is empty ({@code UPDATE ... SET waiter = ? WHERE
 * waiter IS NULL}); the release statement itself returns the column and, only when it is set, runs
 * {@code pg_notify(waiter, lock name)} in the same transaction, so the notification is delivered
 * exactly when the release commits. The next grant clears the column, and the clients still waiting
 * write it again on their next failed attempt. So a release wakes ONE client (the first to register
 * since the last grant), a release nobody waits for sends nothing, and the other waiters keep their
 * bounded backoff poll, which is also the fallback for any notification that gets lost (a client
 * that died while registered, a listener that is reconnecting, a lease that expired instead of being
 * released). Within the client the name (the payload) is dispatched to the waiters of that name
 * only, of which the core lets one compete.
 *
 * <p>Why not a channel per lock name: a channel is an identifier of at most 63 bytes, which a 512-byte
 * name does not fit, every waiter would LISTEN and UNLISTEN on each wait (a round trip each on the
 * listener connection), and every client waiting for the name would still be woken at once.
 *
 * <p>Listener: ONE dedicated connection per backend, opened on the first wait by the backend's one
 * thread, that of its line ({@code LineTicks}), which also blocks in {@code
 * PGConnection.getNotifications(timeout)} between its ticks; this class holds no thread. Baton opens
 * the connection ({@link ListenConnection}) outside the pool when it can (its own pool's settings, an
 * application's HikariCP pool's settings or unpooled DataSource, PostgreSQL's {@code
 * PGSimpleDataSource}); with any other DataSource it borrows one connection and gives it back after
 * {@code UNLISTEN *}. The connection is checked every {@link #PING} and opened again with capped
 * exponential backoff when it breaks; while it is down, waiters simply poll and do not register, and
 * after a reconnect every waiter is woken once to re-check. It is closed after {@link #IDLE} without
 * waiters, and when the backend closes.
 *
 * <p>Does not work behind a transaction-pooling PgBouncer: LISTEN needs a session of its own.
 */
public final class PgNotifications implements ReleaseNotifications, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    static final Duration IDLE = Duration.ofSeconds(60);
    static final Duration PING = Duration.ofSeconds(10);
    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    public enum State {
        STOPPED,
        CONNECTING,
        LISTENING,
        DOWN
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * What precedes a semaphore's name in the payload of a permit's release (and in the key of its
     * waiters here): U+0001, a control character that no lock name contains, so that a permit's
     * release wakes the waiters for that semaphore and not those of a lock of the same name.
     */
    public static final String PERMIT_PREFIX = "\u0001";

    /**
     * What precedes a grant in the payload of a fair hand-off ({@code HandOff}): U+0002, then {@code
     * owner token expiry-ms}, dispatched by owner id to the waiter the release handed the lock to.
     */
    static final String GRANT_PREFIX = "\u0002";

    /** Takes the grants of hand-offs (after {@link #GRANT_PREFIX}); null: none expected. */
    private volatile Consumer<String> grants;

    private final String channel;
    private final Supplier<String> backendName;
    private final DataSource dataSource;
    private final ReconnectingPool ownedPool;
    private final Duration operationTimeout;
    private final BooleanSupplier active;
    private final ConcurrentHashMap<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile State state = State.STOPPED; // written under lock
    private volatile boolean closed; // written under lock
    /** Starts the backend's thread, which connects and receives ({@code LineTicks}). */
    private volatile Runnable start = () -> {};

    // The connection's state below is the thread's alone.
    private ListenConnection listener;
    private boolean listenedBefore;
    private long backoff = MIN_BACKOFF_MILLIS;
    private long retryAt;
    private long lastPing;
    private long idleSince;

    /** @param active whether notifications apply (the database is PostgreSQL, or not known yet) */
    public PgNotifications(
            Supplier<String> backendName,
            DataSource dataSource,
            ReconnectingPool ownedPool,
            Duration operationTimeout,
            BooleanSupplier active) {
        byte[] id = new byte[12];
        RANDOM.nextBytes(id);
        this.channel = "baton_w_" + HexFormat.of().formatHex(id);
        this.backendName = backendName;
        this.dataSource = dataSource;
        this.ownedPool = ownedPool;
        this.operationTimeout = operationTimeout;
        this.active = active;
        this.retryAt = System.nanoTime();
    }

    /**
     * This client's channel: {@code baton_w_} and 24 random hex digits, a safe identifier of 32
     * characters that release statements write into {@code waiter} and NOTIFY.
     */
    public String channel() {
        return channel;
    }

    /** Whether a failed attempt should register this client as the lock's waiter: the listener is up. */
    public boolean registerWaiters() {
        return state == State.LISTENING;
    }

    @Override
    public boolean supported() {
        return active.getAsBoolean();
    }

    /** Waiters for a semaphore's permits are keyed (and notified) apart from a lock of the same name. */
    public Subscription join(LockRequest request, Runnable onRelease) {
        return subscribe(
                request.kind() == LockKind.PERMIT ? PERMIT_PREFIX + request.name() : request.name(), onRelease);
    }

    /**
     * Registers the waiter and makes sure the listener runs. The first wait of a backend waits (at
     * most the operation timeout) until the listener has executed LISTEN, so that a release right
     * after the core's next attempt is seen; if the listener is down it returns at once.
     */
    @Override
    public Subscription subscribe(String name, Runnable onRelease) {
        if (!supported()) {
            return () -> {};
        }
        subscribers.compute(name, (key, list) -> {
            List<Runnable> waiters = list == null ? new CopyOnWriteArrayList<>() : list;
            waiters.add(onRelease);
            return waiters;
        });
        Subscription subscription = () -> subscribers.computeIfPresent(name, (key, list) -> {
            list.remove(onRelease);
            return list.isEmpty() ? null : list;
        });
        start.run(); // the thread connects for this subscriber, whatever the state says
        lock.lock();
        try {
            if (state == State.STOPPED && !closed) {
                state = State.CONNECTING;
            }
            long nanos = operationTimeout.toNanos();
            while (state == State.CONNECTING && !closed && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the core's wait sees it at once
        } finally {
            lock.unlock();
        }
        return subscription;
    }

    /** The backend's thread, started by a wait, connects and receives. */
    public void drivenBy(Runnable start) {
        this.start = start;
    }

    /** Hands the grant payloads of fair hand-offs to {@code grants} (by owner id, see {@link JdbcLine}). */
    public void onGrant(Consumer<String> grants) {
        this.grants = grants;
    }

    private void setState(State next) {
        lock.lock();
        try {
            state = next;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the thread may end: nobody subscribed and no connection open. */
    public boolean idle() {
        return listener == null && !wanted() && !recentlyWanted();
    }

    /** A connection that broke is opened again while a waiter wanted it within {@link #IDLE}. */
    private boolean recentlyWanted() {
        return listenedBefore && System.nanoTime() - idleSince < IDLE.toNanos();
    }

    /** Whether a waiter wants the connection: one is subscribed, or a subscription waits for it. */
    private boolean wanted() {
        return !subscribers.isEmpty() || state == State.CONNECTING;
    }

    /**
     * One step of the backend's thread: opens the connection when a waiter wants it (and a retry is
     * due), then receives for at most {@code waitNanos} (none: only what has arrived).
     *
     * @return whether it waited for notifications, so the caller need not pause
     */
    public boolean step(long waitNanos) {
        if (!subscribers.isEmpty()) {
            idleSince = System.nanoTime();
        }
        if (listener == null) {
            if (!supported() || !(wanted() || recentlyWanted()) || System.nanoTime() - retryAt < 0 || closed) {
                return false;
            }
            connect();
            return false;
        }
        try {
            receive(waitNanos);
            return true;
        } catch (SQLException | RuntimeException e) {
            failed(e);
            return false;
        }
    }

    /** How long until the connection is tried again; no bound while it needs none. */
    public long retryInNanos() {
        return listener == null && (wanted() || recentlyWanted())
                ? Math.max(0, retryAt - System.nanoTime())
                : Long.MAX_VALUE;
    }

    private void connect() {
        try {
            listener = ListenConnection.open(dataSource, ownedPool);
            listener.listen(channel, JdbcTime.queryTimeoutSeconds(operationTimeout));
        } catch (SQLException | RuntimeException | LinkageError e) {
            failed(e);
            return;
        }
        setState(State.LISTENING);
        backoff = MIN_BACKOFF_MILLIS;
        lastPing = idleSince = System.nanoTime();
        if (listenedBefore) {
            // Releases while the listener was down went unheard: let every waiter re-check.
            subscribers.values().forEach(list -> list.forEach(Runnable::run));
            log.info("Baton {}: the LISTEN connection is back; waiters are woken again", backendName.get());
        }
        listenedBefore = true;
    }

    private void failed(Throwable e) {
        if (!closed) {
            log.warn(
                    "Baton {}: the LISTEN connection for release notifications failed; waiters poll until"
                            + " it is back (retrying in {} ms): {}",
                    backendName.get(),
                    backoff,
                    e.toString());
        }
        disconnect(State.DOWN);
        retryAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoff);
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
    }

    /** Delivers what arrives within {@code waitNanos}; closes the connection after {@link #IDLE}. */
    private void receive(long waitNanos) throws SQLException {
        org.postgresql.PGNotification[] received = listener.receive(waitNanos);
        if (received != null) {
            for (org.postgresql.PGNotification notification : received) {
                String payload = notification.getParameter();
                Consumer<String> granted = grants;
                if (granted != null && payload.startsWith(GRANT_PREFIX)) {
                    granted.accept(payload.substring(GRANT_PREFIX.length()));
                } else if (channel.equals(notification.getName())) {
                    List<Runnable> waiters = subscribers.get(payload);
                    if (waiters != null) {
                        waiters.forEach(Runnable::run);
                    }
                }
            }
        }
        long now = System.nanoTime();
        if (subscribers.isEmpty() && now - idleSince > IDLE.toNanos()) {
            disconnect(State.STOPPED);
            return;
        }
        if (now - lastPing > PING.toNanos()) {
            listener.ping(JdbcTime.queryTimeoutSeconds(operationTimeout));
            lastPing = now;
        }
    }

    /** Whether the connection is open (the thread's view). */
    public boolean connected() {
        return listener != null;
    }

    /** Closes the connection, if open; the thread's, when it fails, idles or ends. */
    public void disconnect(State next) {
        if (listener != null) {
            listener.close(JdbcTime.queryTimeoutSeconds(operationTimeout), backendName.get());
            listener = null;
        }
        if (next == State.STOPPED) {
            retryAt = System.nanoTime(); // a new wait connects at once
        }
        setState(next);
    }

    /** Refuses new connections; the thread closes the open one as it ends ({@code LineTicks#close}). */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
