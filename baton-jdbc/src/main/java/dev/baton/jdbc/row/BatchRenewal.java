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
 * Renews up to {@link #SIZE} exclusive grants per {@code UPDATE ... IN}; only its update count is
 * portable (no RETURNING on MariaDB), so a partial count renews the halves again. Shared: one by one.
 */
public final class BatchRenewal {
    public static final int SIZE = 100;

    private final RowProtocol protocol;

    BatchRenewal(RowProtocol protocol) {
        this.protocol = protocol;
    }

    private int update(List<Grant> grants, long leaseMillis) throws SQLException {
        List<Object> params = new ArrayList<>(1 + grants.size() * 3);
        params.add(leaseMillis);
        for (Grant grant : grants) {
            params.addAll(List.of(grant.name(), grant.fencingToken(), grant.ownerId()));
        }
        try (JdbcSession db = protocol.connections.open(false)) {
            return db.update(SqlTemplate.inList(protocol.sql.renewExclusiveIn, 3, grants.size()), params.toArray());
        }
    }

    List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        List<Grant> exclusive =
                grants.stream().filter(g -> g.mode() == LockMode.EXCLUSIVE).toList();
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

    /** Halving costs a lost grant a few statements, not one per grant; renewing one twice is harmless. */
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
