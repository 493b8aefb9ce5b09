package dev.baton.jdbc;

import dev.baton.Holder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.LockRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' view of semaphore permits: the live holders (waiters leave no trace, so none are listed)
 * and forced release by owner id, after which the broken holder's next renewal finds no row.
 */
final class PermitHolders {
    private static final Logger log = LoggerFactory.getLogger(PermitHolders.class);

    private final JdbcPermits permits;
    private final boolean createSchema;

    PermitHolders(JdbcPermits permits, boolean createSchema) {
        this.permits = permits;
        this.createSchema = createSchema;
    }

    List<LockInfo> list(String prefix) {
        String what = prefix.isEmpty() ? "*" : prefix;
        PermitStatements sql;
        try {
            sql = permits.ready(what);
        } catch (LockConfigurationException e) {
            if (createSchema) {
                throw e;
            }
            log.debug("Baton: no semaphores listed, their tables are missing: {}", e.getMessage());
            return List.of();
        }
        Map<String, List<Holder>> holders = new LinkedHashMap<>(); // the query's order: by name, then token
        Map<String, Integer> counts = new HashMap<>();
        try (JdbcSession db = permits.connections.open(false)) {
            db.all(sql.list, rs -> {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (name.startsWith(prefix)) {
                        counts.put(name, rs.getInt(2));
                        holders.computeIfAbsent(name, n -> new ArrayList<>())
                                .add(Holder.of(
                                        rs.getString(3),
                                        LockRows.described(rs.getString(6)),
                                        rs.getLong(4),
                                        sql.dialect.instant(rs, 5)));
                    }
                }
                return null;
            });
        } catch (SQLException e) {
            throw permits.failure(what, "list", e);
        }
        List<LockInfo> semaphores = new ArrayList<>();
        holders.forEach((name, held) ->
                semaphores.add(LockInfo.of(name, LockKind.PERMIT, held).withPermits(counts.get(name))));
        return semaphores;
    }

    /** Breaks the permits of {@code name}: all, or the one of {@code ownerId} when not null. */
    List<LockInfo> forceRelease(String name, String ownerId) {
        List<LockInfo> broken = new ArrayList<>();
        for (LockInfo info : list(name)) {
            if (!info.name().equals(name)) {
                continue;
            }
            List<Holder> hit = info.holders().stream()
                    .filter(holder -> ownerId == null || holder.ownerId().equals(ownerId))
                    .toList();
            for (Holder holder : hit) {
                permits.release(name, holder.ownerId());
            }
            if (!hit.isEmpty()) {
                broken.add(LockInfo.of(name, LockKind.PERMIT, hit).withPermits(info.permits()));
            }
        }
        return broken;
    }
}
