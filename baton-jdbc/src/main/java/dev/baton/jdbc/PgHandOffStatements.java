package dev.baton.jdbc;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL's fair hand-off ({@link HandOff}): every step one auto-commit statement with named
 * parameters ({@link WaiterStatements.HandOffSql}, CTEs around each strategy's grant and hand-on), the
 * hand-off release NOTIFYing the heir's client with its grant. A hand-off release that meets a join
 * committed after its snapshot writes nothing and is run again.
 */
final class PgHandOffStatements implements HandOffStatements {
    private final WaiterStatements.HandOffSql sql;
    private final JdbcConnections connections;
    private final TableNames names;

    PgHandOffStatements(WaiterStatements.HandOffSql sql, JdbcProtocol.Context context) {
        this.sql = sql;
        this.connections = context.connections();
        this.names = context.names();
    }

    @Override
    public boolean notifiesHeir() {
        return true;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, boolean contended) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                    sql.acquire().text(),
                    rs -> HandOff.grant(request, rs.getLong(2), rs.getLong(3)),
                    args(sql.acquire(), request, null));
        }
    }

    @Override
    public HandOff.Joined join(LockRequest request, String channel) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            sql.acquireOrJoin().text(),
                            rs -> "G".equals(rs.getString(1))
                                    ? HandOff.Joined.granted(HandOff.grant(request, rs.getLong(2), rs.getLong(3)))
                                    : HandOff.Joined.QUEUED,
                            args(sql.acquireOrJoin(), request, channel))
                    .orElse(HandOff.Joined.RACED);
        }
    }

    @Override
    public boolean release(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.release().text(), name, owner) == 1;
        }
    }

    @Override
    public HandOff.HandedOn handOn(String name, String owner) throws SQLException {
        SqlTemplate.Named handOff = sql.handOffRelease();
        Object[] args = new Object[handOff.params().size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = handOff.params().get(i).equals("name") ? name : owner;
        }
        long[] done;
        try (JdbcSession db = connections.open(false)) {
            done = db.first(handOff.text(), rs -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}, args)
                    .orElseThrow();
        }
        return new HandOff.HandedOn(done[0] > 0, done[1] > 0, done[2] > 0, null);
    }

    @Override
    public HandOff.Tick tick(LockRequest request, boolean refresh) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.first(
                            sql.tick().text(),
                            rs -> new HandOff.Tick(
                                    rs.getBoolean(1) ? HandOff.grant(request, rs.getLong(2), rs.getLong(3)) : null,
                                    rs.getBoolean(4),
                                    rs.getLong(5) > 0),
                            args(sql.tick(), request, null))
                    .orElseThrow();
        }
    }

    @Override
    public boolean leave(String name, String owner) throws SQLException {
        try (JdbcSession db = connections.open(false)) {
            return db.update(sql.leave().text(), name, owner) == 1;
        }
    }

    /** The statement's parameters by name. */
    private Object[] args(SqlTemplate.Named statement, LockRequest request, String channel) {
        List<String> params = statement.params();
        Object[] args = new Object[params.size()];
        int[] key = null;
        for (int i = 0; i < args.length; i++) {
            args[i] = switch (params.get(i)) {
                case "name" -> request.name();
                case "owner" -> request.ownerId();
                case "lease" -> JdbcTime.leaseMillis(request.leaseTime());
                case "holder" -> request.holder();
                case "channel" -> channel;
                case "key1", "key2" -> {
                    key = key != null ? key : AdvisoryKeys.grantKey(names, request.name());
                    yield params.get(i).equals("key1") ? key[0] : key[1];
                }
                default -> throw new IllegalStateException("unknown parameter " + params.get(i));
            };
        }
        return args;
    }
}
