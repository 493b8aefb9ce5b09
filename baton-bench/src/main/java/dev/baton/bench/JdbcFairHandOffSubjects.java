package dev.baton.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.jdbc.listen.PendingCheckSocketFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The fair hand-off protocol of docs/design/fair-handoff.md on raw JDBC against PostgreSQL, as a bench
 * subject: the statements of {@link FairHandOffStatements}, and the client side Baton would need
 * (one LISTEN connection per client, waiters keyed by owner id, a fallback poll tick).
 *
 * <ul>
 *   <li>acquire: one statement that grants, or (busy) joins the line; a granted acquire returns at
 *       once, a queued one waits for its client's listener to deliver "owner token expiry" from the
 *       release that handed it the lock, or polls every {@value #TICK_MILLIS} ms (which also refreshes
 *       its entry: a waiter that stops polling stops counting after {@link
 *       FairHandOffStatements#WINDOW_MILLIS} ms);
 *   <li>release: one statement that hands the lock to the head of the line (new owner, new token,
 *       server-time expiry, entry deleted, NOTIFY) or deletes/frees it when nobody waits; run again in
 *       the rare case its snapshot missed a join (counted in {@link #releaseRetries}).
 * </ul>
 *
 * <p>Every grant's token is checked against the last one of its name: a token that does not increase
 * fails the iteration (the runner counts it as an error).
 */
final class JdbcFairHandOffSubjects implements LockSubject {
    static final long TICK_MILLIS = 100;
    /** How long a name counts as contended after this client last waited for it or handed it on. */
    private static final long CONTENDED_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final long LEASE_MILLIS = 30_000;
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final String name;
    private final String url;
    private final String user;
    private final String password;
    private final FairHandOffStatements sql;
    private final Map<String, AtomicLong> lastToken = new ConcurrentHashMap<>();
    /** Releases run again because a join raced them. */
    private final LongAdder releaseRetries = new LongAdder();
    /** Fallback ticks of waiters (a missed NOTIFY, a race at join). */
    private final LongAdder polled = new LongAdder();
    /** Time in each statement and wake-up step: where a grant's time goes. */
    private final ProtocolTimings timings = new ProtocolTimings();
    /** When the last release statement started (C8/B8: one holder at a time), for the wake chain. */
    private final AtomicLong releaseStart = new AtomicLong();

    private JdbcFairHandOffSubjects(String name, String url, String user, String password, FairHandOffStatements sql) {
        this.name = name;
        this.url = url;
        this.user = user;
        this.password = password;
        this.sql = sql;
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement st = c.createStatement()) {
            for (String ddl : sql.ddl()) {
                st.execute(ddl);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the fair hand-off tables: " + e, e);
        }
    }

    /** The table strategy's protocol. */
    static JdbcFairHandOffSubjects table(String url, String user, String password) {
        return new JdbcFairHandOffSubjects(
                "proto table fair hand-off", url, user, password, FairHandOffStatements.table("bench_fho_table"));
    }

    /**
     * The LISTEN connection's URL: with {@link PendingCheckSocketFactory} unless {@code
     * FHO_PLAIN_LISTENER} is set (to measure what pgjdbc's 1 ms pending check costs a hand-off).
     */
    private static String listenerUrl(String url) {
        if (System.getenv("FHO_PLAIN_LISTENER") != null) {
            return url;
        }
        return url + (url.contains("?") ? "&" : "?") + "socketFactory=" + PendingCheckSocketFactory.class.getName();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Client newClient() {
        return new FairClient();
    }

    /** A grant as the database wrote it. */
    private record Granted(long token, long expiresAtMillis, long receivedNanos) {
        Granted(long token, long expiresAtMillis) {
            this(token, expiresAtMillis, 0);
        }
    }

    private final class FairClient implements Client {
        private final String channel = "bench_fho_" + CLIENTS.incrementAndGet() + "_"
                + UUID.randomUUID().toString().substring(0, 8);
        private final HikariDataSource pool;
        private final Connection listener;
        private final Thread listenerThread;
        private final Map<String, CompletableFuture<Granted>> waiting = new ConcurrentHashMap<>();
        /** Lock names this client met contended, until when it treats them so ({@link #contended}). */
        private final Map<String, Long> contendedUntil = new ConcurrentHashMap<>();

        private volatile boolean closed;

        FairClient() {
            HikariConfig config = new HikariConfig();
            config.setPoolName(channel);
            config.setJdbcUrl(url);
            config.setUsername(user);
            config.setPassword(password);
            config.setMaximumPoolSize(10);
            config.setAutoCommit(true);
            pool = new HikariDataSource(config);
            try {
                listener = DriverManager.getConnection(listenerUrl(url), user, password);
                try (Statement st = listener.createStatement()) {
                    st.execute("LISTEN " + channel);
                }
            } catch (SQLException e) {
                pool.close();
                throw new IllegalStateException("could not LISTEN: " + e, e);
            }
            listenerThread = new Thread(this::listen, channel);
            listenerThread.setDaemon(true);
            listenerThread.start();
        }

        /** Delivers "owner token expiry-ms" payloads to the waiting acquisition of that owner. */
        private void listen() {
            try {
                PGConnection pg = listener.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notes = pg.getNotifications(500);
                    if (notes == null) {
                        continue;
                    }
                    for (PGNotification note : notes) {
                        String[] p = note.getParameter().split(" ");
                        CompletableFuture<Granted> w = waiting.get(p[0]);
                        if (w != null) {
                            timings.record(
                                    "notify received (from release start)", System.nanoTime() - releaseStart.get());
                            w.complete(new Granted(Long.parseLong(p[1]), Long.parseLong(p[2]), System.nanoTime()));
                        }
                    }
                }
            } catch (SQLException e) {
                if (!closed) {
                    System.err.println(channel + ": listener stopped, waiters poll: " + e);
                }
            }
        }

        @Override
        public Held acquire(String lockName) {
            String owner = UUID.randomUUID().toString();
            CompletableFuture<Granted> handed = new CompletableFuture<>();
            waiting.put(owner, handed);
            try {
                Granted g = acquire(lockName, owner, handed);
                long previous = lastToken
                        .computeIfAbsent(lockName, n -> new AtomicLong(Long.MIN_VALUE))
                        .getAndAccumulate(g.token(), Math::max);
                if (g.token() <= previous) {
                    throw new IllegalStateException(
                            "fencing token " + g.token() + " not above the previous grant's " + previous);
                }
                return () -> release(lockName, owner);
            } catch (SQLException e) {
                throw new IllegalStateException("acquire failed: " + e, e);
            } finally {
                waiting.remove(owner);
            }
        }

        /**
         * Whether {@code lockName} was contended lately (this client waited for it, or released it to a
         * waiter): then the joining acquire and the hand-off release run at once; otherwise the plain
         * statements, which cost what a barging lock's do, and the others only when the plain one
         * finds the lock busy or someone in line (one more round trip, once per contended spell).
         */
        private boolean contended(String lockName) {
            Long until = contendedUntil.get(lockName);
            return until != null && until - System.nanoTime() > 0;
        }

        private void markContended(String lockName) {
            contendedUntil.put(lockName, System.nanoTime() + CONTENDED_NANOS);
        }

        private Granted acquire(String lockName, String owner, CompletableFuture<Granted> handed) throws SQLException {
            if (!contended(lockName)) {
                Object[] row = first(
                        sql.plainAcquire(),
                        Map.of(
                                "name", lockName,
                                "owner", owner,
                                "lease", LEASE_MILLIS));
                if (row != null) {
                    return new Granted((Long) row[1], (Long) row[2]);
                }
            }
            markContended(lockName);
            boolean joined = false;
            while (true) {
                Object[] row = first(
                        sql.acquire(),
                        Map.of(
                                "name", lockName,
                                "owner", owner,
                                "lease", LEASE_MILLIS,
                                "join", true,
                                "channel", channel));
                if (row != null && "G".equals(row[0])) {
                    if (joined) {
                        update(sql.leave(), Map.of("name", lockName, "owner", owner)); // its entry, if left
                    }
                    return new Granted((Long) row[1], (Long) row[2]);
                }
                joined = joined || row != null;
                // Queued (or the join met a release that changed the row): wait for the hand-off.
                while (true) {
                    try {
                        Granted g = handed.get(row == null ? 0 : TICK_MILLIS, TimeUnit.MILLISECONDS);
                        timings.record("waiter running (from notify received)", System.nanoTime() - g.receivedNanos());
                        return g;
                    } catch (TimeoutException e) {
                        // The fallback: a missed NOTIFY, an expired holder, a lost entry.
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        leave(lockName, owner);
                        throw new IllegalStateException("interrupted", e);
                    } catch (ExecutionException e) {
                        throw new IllegalStateException(e);
                    }
                    polled.increment();
                    Object[] p = first(sql.poll(), Map.of("name", lockName, "owner", owner));
                    if ((Boolean) p[0]) {
                        return new Granted((Long) p[1], (Long) p[2]);
                    }
                    if ((Boolean) p[3] || ((Long) p[4]) == 0) {
                        break; // free or expired (the head takes it over), or out of line: acquire again
                    }
                    row = new Object[] {"Q"};
                }
            }
        }

        /** A waiter that gives up: leave, and if a release handed it the lock meanwhile, release it. */
        private void leave(String lockName, String owner) {
            try {
                if (update(sql.leave(), Map.of("name", lockName, "owner", owner)) == 0) {
                    release(lockName, owner);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("leave failed: " + e, e);
            }
        }

        private void release(String lockName, String owner) {
            try {
                if (!contended(lockName)) {
                    if (update(sql.plainRelease(), Map.of("name", lockName, "owner", owner)) == 1) {
                        return;
                    }
                    markContended(lockName); // someone is in line (or the lock was lost: said below)
                }
                while (true) {
                    releaseStart.set(System.nanoTime());
                    Object[] r = first(sql.release(), Map.of("name", lockName, "owner", owner));
                    if ((Long) r[0] == 0) {
                        throw new IllegalStateException("released a lock it no longer held");
                    }
                    if ((Long) r[1] > 0) {
                        markContended(lockName);
                    }
                    if ((Long) r[1] + (Long) r[2] > 0) {
                        return;
                    }
                    releaseRetries.increment();
                }
            } catch (SQLException e) {
                throw new IllegalStateException("release failed: " + e, e);
            }
        }

        private Object[] first(FairHandOffStatements.Sql statement, Map<String, Object> values) throws SQLException {
            long start = System.nanoTime();
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = prepare(c, statement, values);
                    ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Object[] row = new Object[rs.getMetaData().getColumnCount()];
                for (int i = 0; i < row.length; i++) {
                    row[i] = rs.getObject(i + 1);
                }
                return row;
            } finally {
                timings.record(
                        statement == sql.acquire()
                                ? "acquire"
                                : statement == sql.plainAcquire()
                                        ? "plain acquire"
                                        : statement == sql.release() ? "release" : "poll",
                        System.nanoTime() - start);
            }
        }

        private int update(FairHandOffStatements.Sql statement, Map<String, Object> values) throws SQLException {
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = prepare(c, statement, values)) {
                return ps.executeUpdate();
            }
        }

        private static PreparedStatement prepare(
                Connection c, FairHandOffStatements.Sql statement, Map<String, Object> values) throws SQLException {
            PreparedStatement ps = c.prepareStatement(statement.text());
            List<String> params = statement.params();
            for (int i = 0; i < params.size(); i++) {
                Object value = values.get(params.get(i));
                if (value == null) {
                    throw new IllegalArgumentException("no value for :" + params.get(i));
                }
                ps.setObject(i + 1, value);
            }
            return ps;
        }

        @Override
        public void close() {
            closed = true;
            try {
                listenerThread.join(2_000);
                listener.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (SQLException e) {
                // closing anyway
            }
            pool.close();
        }
    }

    /** Tells what the protocol did besides its one statement per step. */
    @Override
    public void close() {
        System.out.println("  " + name + ": release statements run again after a racing join: " + releaseRetries.sum()
                + "; poll ticks of waiters: " + polled.sum() + "; " + timings);
    }
}
