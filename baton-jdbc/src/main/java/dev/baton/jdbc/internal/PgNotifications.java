package dev.baton.jdbc.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.jdbc.listen.PendingCheckSocketFactory;
import dev.baton.spi.ReleaseNotifications;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
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
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backend's LISTEN/NOTIFY wake-ups: its waiters by name and its one LISTEN connection, which the
 * line's thread drives through {@link #step} ({@code docs/design/jdbc.md}, "Waiting across clients").
 */
public final class PgNotifications implements ReleaseNotifications, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final Duration IDLE = Duration.ofSeconds(60);
    private static final Duration PING = Duration.ofSeconds(10);
    private static final long MIN_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 5_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Precedes a semaphore's name in a payload: no lock name contains U+0001. */
    public static final String PERMIT_PREFIX = "\u0001";
    /** Precedes a fair hand-off's grant in a payload, {@code owner token expiry-ms}. */
    private static final String GRANT_PREFIX = "\u0002";

    /** DOWN: the connection broke and is retried with backoff; a new waiter does not wait for it. */
    private enum State {
        STOPPED,
        CONNECTING,
        LISTENING,
        DOWN
    }

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
    private volatile Runnable start = () -> {};
    private volatile Consumer<String> grants = payload -> {};

    // The connection's state below is the backend thread's alone.
    private Connection connection;
    private boolean borrowed; // from the application's pool: given back after UNLISTEN *
    private boolean listenedBefore;
    private long backoff = MIN_BACKOFF_MILLIS;
    private long retryAt = System.nanoTime();
    private long lastPing;
    private long idleSince;

    /** {@code active}: whether notifications apply (the database is PostgreSQL, or not known yet). */
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
    }

    /** Random hex after {@code baton_w_}: an identifier that needs no escaping. */
    public String channel() {
        return channel;
    }

    /** Whether the listener is up, so that waiters may register this client's channel. */
    public boolean registerWaiters() {
        return state == State.LISTENING;
    }

    @Override
    public boolean supported() {
        return active.getAsBoolean();
    }

    /** Waits (at most the operation timeout) for LISTEN, so a release right after the next attempt is heard. */
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

    /** The backend's thread: {@code start} starts it, {@code grants} takes hand-offs' payloads. */
    public void drivenBy(Runnable start, Consumer<String> grants) {
        this.start = start;
        this.grants = grants;
    }

    public boolean idle() {
        return connection == null && !wanted();
    }

    /** A waiter is subscribed or waits for the connection, or was within {@link #IDLE} (a broken one reopens). */
    private boolean wanted() {
        return !subscribers.isEmpty()
                || state == State.CONNECTING
                || (listenedBefore && System.nanoTime() - idleSince < IDLE.toNanos());
    }

    /**
     * Connects when wanted and a retry is due, else receives for up to {@code waitNanos}; returns how
     * much of the pause the thread still has to take.
     */
    public long step(long waitNanos) {
        if (!subscribers.isEmpty()) {
            idleSince = System.nanoTime();
        }
        if (connection == null) {
            if (supported() && wanted() && System.nanoTime() - retryAt >= 0 && !closed) {
                connect();
            }
        } else {
            try {
                receive(waitNanos);
                return 0;
            } catch (SQLException | RuntimeException e) {
                failed(e);
            }
        }
        boolean retrying = connection == null && wanted();
        return retrying ? Math.min(waitNanos, Math.max(0, retryAt - System.nanoTime())) : waitNanos;
    }

    private void connect() {
        try {
            open();
            execute("LISTEN \"" + channel + "\"");
        } catch (SQLException | RuntimeException | LinkageError e) {
            failed(e);
            return;
        }
        signal(() -> state = State.LISTENING);
        backoff = MIN_BACKOFF_MILLIS;
        lastPing = idleSince = System.nanoTime();
        if (listenedBefore) {
            // Releases while the listener was down went unheard: let every waiter re-check.
            subscribers.values().forEach(list -> list.forEach(Runnable::run));
            log.info("Baton {}: the LISTEN connection is back; waiters are woken again", backendName.get());
        }
        listenedBefore = true;
    }

    /** Opens the connection outside any pool when it can, since a pool of one would starve the waiters. */
    private void open() throws SQLException {
        borrowed = false;
        if (ownedPool != null) {
            connection = ownedPool.openDedicated();
            return;
        }
        if (dataSource.isWrapperFor(HikariDataSource.class)) {
            HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
            if (hikari.getDataSource() != null) {
                connection = hikari.getDataSource().getConnection();
                return;
            }
            if (hikari.getJdbcUrl() != null) {
                connection = PendingCheckSocketFactory.connect(
                        hikari.getJdbcUrl(), ReconnectingPool.driverProperties(hikari), DriverManager::getConnection);
                return;
            }
        }
        if (dataSource.isWrapperFor(org.postgresql.ds.PGSimpleDataSource.class)) {
            connection = dataSource
                    .unwrap(org.postgresql.ds.PGSimpleDataSource.class)
                    .getConnection();
            return;
        }
        connection = dataSource.getConnection();
        borrowed = true;
        if (!connection.getAutoCommit()) {
            connection.setAutoCommit(true);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.setQueryTimeout(JdbcTime.queryTimeoutSeconds(operationTimeout));
            st.execute(sql);
        }
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

    /** Pings every {@link #PING}: a server that vanished without closing the socket sends nothing. */
    private void receive(long waitNanos) throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        long millis = TimeUnit.NANOSECONDS.toMillis(waitNanos);
        PGNotification[] received =
                millis <= 0 ? pg.getNotifications() : pg.getNotifications((int) Math.min(millis, Integer.MAX_VALUE));
        if (received != null) {
            for (PGNotification notification : received) {
                String payload = notification.getParameter();
                if (payload.startsWith(GRANT_PREFIX)) {
                    grants.accept(payload.substring(GRANT_PREFIX.length()));
                } else if (channel.equals(notification.getName())) {
                    subscribers.getOrDefault(payload, List.of()).forEach(Runnable::run);
                }
            }
        }
        long now = System.nanoTime();
        if (subscribers.isEmpty() && now - idleSince > IDLE.toNanos()) {
            disconnect(State.STOPPED);
        } else if (now - lastPing > PING.toNanos()) {
            execute("SELECT 1");
            lastPing = now;
        }
    }

    public void stop() {
        if (connection != null) {
            disconnect(State.STOPPED);
        }
    }

    /** Closes the connection; a borrowed one goes back to its pool without its LISTEN, or is discarded. */
    private void disconnect(State next) {
        if (connection != null) {
            try {
                if (borrowed && !connection.isClosed()) {
                    execute("UNLISTEN *");
                }
                connection.close();
            } catch (SQLException e) {
                log.debug("Baton {}: closing the LISTEN connection failed: {}", backendName.get(), e.toString());
                if (borrowed) {
                    JdbcSession.discard(connection, null);
                }
            }
            connection = null;
        }
        if (next == State.STOPPED) {
            retryAt = System.nanoTime(); // a new wait connects at once
        }
        signal(() -> state = next);
    }

    private void signal(Runnable change) {
        lock.lock();
        try {
            change.run();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Refuses new connections; the thread closes the open one as it ends. */
    @Override
    public void close() {
        signal(() -> closed = true);
    }
}
