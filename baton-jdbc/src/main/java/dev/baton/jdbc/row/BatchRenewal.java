package dev.baton.jdbc.row;

import dev.baton.LockMode;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.SqlTemplate;
import dev.baton.spi.Grant;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Renewal of many exclusive grants of one client in one statement: {@code UPDATE ... WHERE <still
 * held> AND (lock_name, owner_id[, version]) IN ((?, ?), ...)}, up to {@link #SIZE} rows, portable
 * across H2, PostgreSQL and MariaDB (row values, no RETURNING).
 *
 * <p>Why the update count is enough: when it equals the number of grants, every one was still held
 * and is renewed; when it is zero, none was. In between, some were lost, and the two halves are
 * renewed again ({@link #renewExclusive}), down to single grants renewed with the strategy's own
 * renew. The common case costs one round trip per hundred grants, a loss a few more. Shared grants
 * take two rows in a transaction each and are renewed one by one.
 */
public final class BatchRenewal {
    /** Grants per statement. */
    public static final int SIZE = 100;

    private final RowProtocol protocol;

    /** @param protocol the settled protocol: its batch statement and its renewal of one grant */
    BatchRenewal(RowProtocol protocol) {
        this.protocol = protocol;
    }

    /**
     * The batch statement, run in a session of its own: the protocol's {@code renewIn} (whose first
     * parameter is the lease) followed by an IN list of each grant's {@code renewKey} columns.
     *
     * @return its update count
     */
    private int update(List<Grant> grants, long leaseMillis) throws SQLException {
        List<Object> params = new ArrayList<>(1 + grants.size() * 3);
        params.add(leaseMillis);
        int columns = 0;
        for (Grant grant : grants) {
            List<Object> columnValues = protocol.renewKey(grant);
            columns = columnValues.size();
            params.addAll(columnValues);
        }
        try (JdbcSession db = protocol.connections.open(false)) {
            return db.update(SqlTemplate.inList(protocol.renewIn(), columns, grants.size()), params.toArray());
        }
    }

    /**
     * Renews {@code grants}: the exclusive ones with the batch statement when there are several, the
     * others one by one.
     */
    List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        List<Grant> exclusive = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            if (grant.mode() == LockMode.EXCLUSIVE) {
                exclusive.add(grant);
            }
        }
        Map<Grant, Optional<Grant>> renewed = new IdentityHashMap<>();
        if (!exclusive.isEmpty()) {
            renewExclusive(exclusive, leaseTime, renewed);
        }
        List<Optional<Grant>> result = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            result.add(grant.mode() == LockMode.EXCLUSIVE ? renewed.get(grant) : protocol.renew(grant, leaseTime));
        }
        return result;
    }

    /**
     * Renews exclusive {@code grants} into {@code renewed}. When the update count shows that some
     * were lost, the halves are renewed again, each in one statement, down to single grants: a lost
     * grant among a hundred costs about 15 statements instead of a hundred, so on a slow link the
     * others of its call are renewed in time too (a hundred round trips of 10 ms, one after another,
     * outlast a 1 s lease). Renewing a grant twice is harmless; a half whose count is zero was lost
     * whole, as the one-by-one renewal would say of each.
     */
    private void renewExclusive(List<Grant> grants, Duration leaseTime, Map<Grant, Optional<Grant>> renewed) {
        if (grants.size() == 1) {
            renewed.put(grants.get(0), protocol.renew(grants.get(0), leaseTime));
            return;
        }
        long leaseMillis = Math.max(1, leaseTime.toMillis());
        Instant expiry = Instant.now().plusMillis(leaseMillis);
        int count;
        try {
            count = update(grants, leaseMillis);
        } catch (SQLException e) {
            throw protocol.context.failure(grants.get(0).name(), "renew", e);
        }
        if (count == grants.size() || count == 0) {
            for (Grant grant : grants) {
                // The expiry is informational (the core judges validity on its own clock).
                renewed.put(grant, count == 0 ? Optional.empty() : Optional.of(grant.withExpiresAt(expiry)));
            }
            return;
        }
        int half = grants.size() / 2;
        renewExclusive(grants.subList(0, half), leaseTime, renewed);
        renewExclusive(grants.subList(half, grants.size()), leaseTime, renewed);
    }
}
