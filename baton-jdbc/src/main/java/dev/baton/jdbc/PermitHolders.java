package dev.baton.jdbc;

import dev.baton.Holder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.LockRows;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' view of semaphore permits ({@link JdbcPermits}): the live permits with their holders,
 * filtered by prefix here (waiters poll and leave no trace, so none are counted; none at all while
 * the tables are missing and may not be created), and forced release by owner id, which frees the
 * permit at once and makes the broken holder's next renewal find no row.
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
        List<LockInfo> semaphores = new ArrayList<>();
        try (JdbcSession db = permits.connections.open(false)) {
            db.all(sql.list, rs -> {
                String name = null;
                int count = 1;
                List<Holder> holders = new ArrayList<>();
                while (rs.next()) {
                    String rowName = rs.getString(1);
                    if (!rowName.equals(name)) {
                        add(semaphores, name, count, holders, prefix);
                        name = rowName;
                        count = rs.getInt(2);
                        holders = new ArrayList<>();
                    }
                    holders.add(Holder.of(
                            rs.getString(3),
                            LockRows.described(rs.getString(6)),
                            rs.getLong(4),
                            sql.dialect.instant(rs, 5)));
                }
                add(semaphores, name, count, holders, prefix);
                return null;
            });
        } catch (SQLException e) {
            throw permits.failure(what, "list", e);
        }
        return semaphores;
    }

    private static void add(List<LockInfo> semaphores, String name, int count, List<Holder> holders, String prefix) {
        if (name != null && name.startsWith(prefix)) {
            semaphores.add(LockInfo.of(name, LockKind.PERMIT, holders).withPermits(count));
        }
    }

    /** Breaks the permits of {@code name} (all, or the one of {@code ownerId}); what was broken. */
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
                broken.add(LockInfo.of(name, LockKind.PERMIT, hit)
                        .withPermits(info.permits())
                        .withWaiters(info.waiters()));
            }
        }
        return broken;
    }
}
