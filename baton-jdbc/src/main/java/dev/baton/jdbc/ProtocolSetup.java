package dev.baton.jdbc;

import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcFailures;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.JdbcSchema;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.pinned.PinningProtocol;
import dev.baton.jdbc.row.RowProtocol;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a backend's {@link JdbcProtocol} once, on the first call through the {@link SchemaGate}: it
 * detects the database if needed and checks or creates the schema; a table dropped later is not
 * created again (its statements fail, naming the DDL to run).
 */
final class ProtocolSetup {
    private static final Logger log = LoggerFactory.getLogger(ProtocolSetup.class);

    private final Strategy strategy;
    private final boolean createSchema;
    /** Every protocol's context, given its dialect by {@link JdbcProtocol.Context#on}. */
    private final JdbcProtocol.Context parts;

    private final SchemaGate<JdbcProtocol> gate;
    /** Null until the first check when the DataSource is the application's. */
    private volatile Dialect dialect;

    private volatile String name;

    ProtocolSetup(
            Strategy strategy,
            boolean createSchema,
            JdbcProtocol.Context parts,
            Dialect dialect,
            SchemaGate<JdbcProtocol> gate) {
        this.strategy = strategy;
        this.createSchema = createSchema;
        this.parts = parts;
        this.dialect = dialect;
        this.name = nameOn(dialect);
        this.gate = gate;
    }

    Dialect dialect() {
        return dialect;
    }

    /** Whether PostgreSQL's release notifications apply: on PostgreSQL, or (not advisory) not known yet. */
    boolean notifiesReleases() {
        Dialect known = dialect;
        return strategy == Strategy.ADVISORY
                ? known == Dialect.POSTGRESQL
                : known == null || known == Dialect.POSTGRESQL;
    }

    String name() {
        return name;
    }

    private String nameOn(Dialect known) {
        String base = strategy.backendName();
        return known == null ? base : base + " (" + known.displayName() + ")";
    }

    /** The DDL of the strategy, or null while the dialect is not known. */
    String ddl() {
        Dialect d = dialect;
        return d == null ? null : JdbcSchema.ddl(strategy.key(), d, parts.names());
    }

    JdbcProtocol ready(String lockName) {
        return gate.pass(lockName, () -> {
            for (int attempt = 1; ; attempt++) {
                try (JdbcSession db = parts.connections().open(false)) {
                    return settle(db, lockName);
                } catch (SQLException e) {
                    // Clients creating the schema at once can trip H2's catalogue (a general error):
                    // look again a few times; anything else is final at once.
                    if (attempt >= 3 || !"HY000".equals(e.getSQLState())) {
                        throw e;
                    }
                    log.debug(
                            "Baton lock '{}' on {}: schema check failed, retrying: {}",
                            lockName,
                            parts.backendName(),
                            e.toString());
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20L * attempt));
                }
            }
        });
    }

    private JdbcProtocol settle(JdbcSession db, String lockName) throws SQLException {
        Dialect d = dialect;
        if (d == null) {
            d = strategy.detect(db.connection, lockName);
            dialect = d;
            name = nameOn(d);
        }
        JdbcProtocol protocol = protocol(d);
        JdbcSchema.ensure(
                db.connection,
                JdbcSchema.ddl(strategy.key(), d, parts.names()),
                protocol.probes(),
                createSchema,
                parts.connections().queryTimeoutSeconds,
                "Baton lock '" + lockName + "' on " + parts.backendName(),
                e -> JdbcFailures.explain(e, parts.connections().operationTimeout, parts.names()));
        protocol.prepare(db);
        parts.connections().learnIsolation(db.connection);
        return protocol;
    }

    private JdbcProtocol protocol(Dialect d) {
        JdbcProtocol.Context context = parts.on(d);
        return switch (strategy) {
            case TABLE -> new RowProtocol(context);
            case PESSIMISTIC -> PinningProtocol.pessimistic(context);
            case ADVISORY -> PinningProtocol.advisory(context);
        };
    }
}
