package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.servers.DatabaseServer;
import dev.baton.servers.H2Server;
import dev.baton.servers.MariaDbServer;
import dev.baton.servers.PostgresServer;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Fencing} against real PostgreSQL, MariaDB and H2 servers. Every test writes its own fresh
 * table: {@code id BIGINT PRIMARY KEY, payload, amount, code UNIQUE, fencing_token BIGINT}.
 */
@Timeout(value = KitTime.TEST_TIMEOUT_SECONDS, unit = TimeUnit.SECONDS)
class FencingTest {
    private static DatabaseServer postgres;
    private static DatabaseServer mariadb;
    private static H2Server h2;

    enum Database {
        POSTGRESQL(() -> postgres),
        MARIADB(() -> mariadb),
        H2(() -> h2);

        private final Supplier<DatabaseServer> server;

        Database(Supplier<DatabaseServer> server) {
            this.server = server;
        }

        Connection connect() throws SQLException {
            DatabaseServer s = server.get();
            return DriverManager.getConnection(s.jdbcUrl(), s.user(), s.password());
        }
    }

    @BeforeAll
    static void startServers() {
        postgres = PostgresServer.sharedDatabase();
        mariadb = MariaDbServer.sharedDatabase();
        h2 = H2Server.start();
    }

    @AfterAll
    static void stopServers() {
        for (AutoCloseable server : new AutoCloseable[] {h2, mariadb, postgres}) {
            try {
                if (server != null) {
                    server.close();
                }
            } catch (Exception e) {
                // best effort; the servers' own shutdown hooks remain
            }
        }
    }

    private static Fencing.Table freshTable(Database db) throws SQLException {
        String name = "f_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        try (Connection c = db.connect()) {
            execute(
                    c,
                    "CREATE TABLE " + name + " (id BIGINT PRIMARY KEY, payload VARCHAR(40), amount BIGINT,"
                            + " code VARCHAR(20) UNIQUE, fencing_token BIGINT)");
        }
        return new Fencing.Table(name, "id", "fencing_token");
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement statement = c.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The row as "payload/amount/token", or null when there is none. */
    private static String row(Connection c, Fencing.Table table, long id) throws SQLException {
        try (Statement statement = c.createStatement();
                ResultSet rs = statement.executeQuery(
                        "SELECT payload, amount, fencing_token FROM " + table.name() + " WHERE id = " + id)) {
            if (!rs.next()) {
                return null;
            }
            Object token = rs.getObject(3);
            return rs.getString(1) + "/" + rs.getObject(2) + "/" + token;
        }
    }

    private static Map<String, Object> values(String payload, long amount) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("payload", payload);
        values.put("amount", amount);
        return values;
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void staleTokenIsRefusedAndLeavesTheRowAlone(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            execute(
                    c,
                    "INSERT INTO " + table.name() + " (id, payload, amount, fencing_token) VALUES (1, 'new', 1, 10)");
            assertThat(Fencing.guardedUpdate(c, table, 1L, 9, values("stale", 9)))
                    .isFalse();
            assertThat(Fencing.guardedUpsert(c, table, 1L, 0, values("stale", 0)))
                    .isFalse();
            assertThat(row(c, table, 1)).isEqualTo("new/1/10");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void equalTokenIsAcceptedSoOneHolderMayWriteTwice(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            execute(c, "INSERT INTO " + table.name() + " (id, payload, amount, fencing_token) VALUES (1, 'a', 1, 10)");
            assertThat(Fencing.guardedUpdate(c, table, 1L, 10, values("b", 2))).isTrue();
            assertThat(Fencing.guardedUpdate(c, table, 1L, 10, values("b", 2)))
                    .as("the same values again")
                    .isTrue();
            assertThat(Fencing.guardedUpdate(c, table, 1L, 10, Map.of("payload", "c")))
                    .isTrue();
            assertThat(row(c, table, 1)).isEqualTo("c/2/10");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void higherTokenIsAcceptedAndRecorded(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            execute(c, "INSERT INTO " + table.name() + " (id, payload, amount, fencing_token) VALUES (1, 'a', 1, 10)");
            assertThat(Fencing.guardedUpdate(c, table, 1L, 11, values("b", 11))).isTrue();
            assertThat(row(c, table, 1)).isEqualTo("b/11/11");
            assertThat(Fencing.guardedUpdate(c, table, 1L, 10, values("late", 10)))
                    .as("the old holder, after the new one wrote")
                    .isFalse();
            assertThat(row(c, table, 1)).isEqualTo("b/11/11");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void rowWithoutATokenAcceptsTheFirstWriteAndNullValues(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            execute(c, "INSERT INTO " + table.name() + " (id, payload, amount) VALUES (1, 'unfenced', 5)");
            Map<String, Object> values = new HashMap<>();
            values.put("payload", null);
            assertThat(Fencing.guardedUpdate(c, table, 1L, 0, values)).isTrue();
            assertThat(row(c, table, 1)).isEqualTo("null/5/0");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void guardedUpdateWritesNoMissingRowButUpsertInsertsIt(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            assertThat(Fencing.guardedUpdate(c, table, 7L, 3, values("x", 3))).isFalse();
            assertThat(row(c, table, 7)).isNull();

            assertThat(Fencing.guardedUpsert(c, table, 7L, 3, values("first", 3)))
                    .isTrue();
            assertThat(row(c, table, 7)).isEqualTo("first/3/3");
            assertThat(Fencing.guardedUpsert(c, table, 7L, 2, values("stale", 2)))
                    .isFalse();
            assertThat(Fencing.guardedUpsert(c, table, 7L, 3, values("again", 3)))
                    .isTrue();
            assertThat(Fencing.guardedUpsert(c, table, 7L, 4, values("newer", 4)))
                    .isTrue();
            assertThat(row(c, table, 7)).isEqualTo("newer/4/4");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void upsertInsideATransactionAndRollbackForgetsTheToken(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            assertThat(Fencing.guardedUpsert(c, table, 1L, 5, values("kept", 5)))
                    .isTrue();
            c.commit();
            assertThat(Fencing.guardedUpsert(c, table, 1L, 50, values("rolled back", 50)))
                    .isTrue();
            assertThat(Fencing.guardedUpsert(c, table, 2L, 50, values("rolled back", 50)))
                    .isTrue();
            c.rollback();
            assertThat(Fencing.guardedUpsert(c, table, 1L, 20, values("after", 20)))
                    .isTrue();
            c.commit();
            assertThat(row(c, table, 1)).isEqualTo("after/20/20");
            assertThat(row(c, table, 2)).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void schemaQualifiedTableIsWritten(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            String schema = c.getSchema() != null ? c.getSchema() : c.getCatalog();
            Fencing.Table qualified = new Fencing.Table(schema + "." + table.name(), "id", "fencing_token");
            assertThat(Fencing.guardedUpsert(c, qualified, 1L, 1, values("q", 1)))
                    .isTrue();
            assertThat(row(c, table, 1)).isEqualTo("q/1/1");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void sqlExceptionsPassThroughAndWriteNothing(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            execute(c, "INSERT INTO " + table.name() + " (id, payload, amount, code) VALUES (1, 'a', 1, 'A')");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, table, 1L, 1, Map.of("no_such_column", 1)))
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> Fencing.guardedUpsert(c, table, 2L, 1, Map.of("code", "A")))
                    .as("a duplicate in another unique column is not a stale token")
                    .isInstanceOf(SQLException.class);
            Fencing.Table missing = new Fencing.Table(table.name() + "_missing", "id", "fencing_token");
            assertThatThrownBy(() -> Fencing.guardedUpdate(c, missing, 1L, 1, Map.of("payload", "x")))
                    .isInstanceOf(SQLException.class);
            assertThat(row(c, table, 1)).isEqualTo("a/1/null");
            assertThat(row(c, table, 2)).isNull();

            c.setAutoCommit(false);
            assertThatThrownBy(() -> Fencing.guardedUpsert(c, table, 2L, 1, Map.of("code", "A")))
                    .as("inside a transaction, the duplicate itself, not a follow-up failure")
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).startsWith("23"));
            c.rollback();
            assertThat(row(c, table, 2)).isNull();
        }
    }

    /**
     * Writers with shuffled tokens race on one existing row (guardedUpdate; half of them in explicit
     * transactions) and one missing row (guardedUpsert), while a reader checks that the token of
     * each row never goes down and always travels with its own values.
     */
    @ParameterizedTest
    @EnumSource(Database.class)
    void concurrentWritersEndWithTheHighestTokensValues(Database db) throws Exception {
        Fencing.Table table = freshTable(db);
        try (Connection c = db.connect()) {
            execute(c, "INSERT INTO " + table.name() + " (id, payload, amount) VALUES (1, 'seed', 0)");
        }
        int writers = 4;
        long highest = 200;
        long seed = System.nanoTime();
        List<Long> tokens = LongStream.rangeClosed(1, highest).boxed().collect(Collectors.toList());
        Collections.shuffle(tokens, new Random(seed));

        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<List<Long>>> accepted = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                List<Long> mine = new ArrayList<>();
                for (int i = w; i < tokens.size(); i += writers) {
                    mine.add(tokens.get(i));
                }
                boolean transactional = w % 2 == 1;
                accepted.add(pool.submit(() -> write(db, table, mine, transactional, start)));
            }
            Future<Integer> reads = pool.submit(() -> readWhileWriting(db, table, writing, start));
            start.countDown();

            List<Long> acceptedTokens = new ArrayList<>();
            for (Future<List<Long>> writer : accepted) {
                acceptedTokens.addAll(Await.result(writer, KitTime.bulkWork(tokens.size())));
            }
            writing.set(false);
            assertThat(Await.result(reads, KitTime.grant())).as("rows read").isPositive();
            assertThat(acceptedTokens).as("seed %d", seed).contains(highest);
            try (Connection c = db.connect()) {
                assertThat(row(c, table, 1))
                        .as("seed %d", seed)
                        .isEqualTo("v" + highest + "/" + highest + "/" + highest);
                assertThat(row(c, table, 2))
                        .as("seed %d", seed)
                        .isEqualTo("v" + highest + "/" + highest + "/" + highest);
            }
        } finally {
            writing.set(false);
            pool.shutdownNow();
            assertThat(pool.awaitTermination(KitTime.CLOSE.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
        }
    }

    /** Writes each token to row 1 (update) and row 2 (upsert); returns the tokens row 1 accepted. */
    private static List<Long> write(
            Database db, Fencing.Table table, List<Long> tokens, boolean transactional, CountDownLatch start)
            throws Exception {
        List<Long> accepted = new ArrayList<>();
        try (Connection updates = db.connect();
                Connection upserts = db.connect()) {
            updates.setAutoCommit(!transactional);
            start.await();
            for (long token : tokens) {
                if (Fencing.guardedUpdate(updates, table, 1L, token, values("v" + token, token))) {
                    accepted.add(token);
                }
                if (transactional) {
                    updates.commit();
                }
                Fencing.guardedUpsert(upserts, table, 2L, token, values("v" + token, token));
            }
        }
        return accepted;
    }

    /** Reads both rows until told to stop; fails if a token goes down or differs from its values. */
    private static int readWhileWriting(Database db, Fencing.Table table, AtomicBoolean writing, CountDownLatch start)
            throws Exception {
        long[] last = {-1, -1, -1};
        int reads = 0;
        try (Connection c = db.connect()) {
            start.await();
            do {
                for (int id = 1; id <= 2; id++) {
                    String row = row(c, table, id);
                    if (row == null || row.endsWith("/null")) {
                        continue; // not inserted, or not written by a guarded write yet
                    }
                    String[] parts = row.split("/");
                    long token = Long.parseLong(parts[2]);
                    assertThat(parts[0] + "/" + parts[1]).as("row %d", id).isEqualTo("v" + token + "/" + token);
                    assertThat(token).as("token of row %d", id).isGreaterThanOrEqualTo(last[id]);
                    last[id] = token;
                    reads++;
                }
            } while (writing.get());
        }
        return reads;
    }
}
