package dev.baton.jdbc;

import dev.baton.Holder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.jdbc.internal.Dialect;
import dev.baton.jdbc.internal.JdbcSession;
import dev.baton.jdbc.internal.LockRows;
import dev.baton.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' view of semaphore permits ({@link JdbcPermits}), for every strategy: listing them with
 * their holders, and breaking them by owner id.
 *
 * <ul>
 *   <li>List: one query over {@code <table>_permits} joined with the semaphores' counts, live permits
 *       only, filtered by prefix here. Waiters are not counted: permit waiters poll and leave no
 *       trace. While the permit tables do not exist and may not be created (createSchema=false),
 *       there are no semaphores to list.
 *   <li>Forced release: deletes the holder's row by owner id, as an abandoned attempt's clean-up
 *       does, from any connection: the permit is free at once, the next token is the semaphore's
 *       counter plus one (above every broken holder's), and the broken holder's next renewal finds no
 *       row, so its lease is reported lost.
 * </ul>
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
        Dialect dialect;
        try {
            sql = permits.ready(what);
            dialect = permits.strategyCheck.apply(what);
        } catch (LockConfigurationException e) {
            if (createSchema) {
                throw e;
            }
            log.debug("Baton: no semaphores listed, their tables are missing: {}", e.getMessage());
            return List.of();
        }
        List<LockInfo> semaphores = new ArrayList<>();
        try (JdbcSession db = permits.open(false)) {
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
                            dialect.instant(rs, 5)));
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
                permits.abandon(LockRequest.builder(name, holder.ownerId(), LockKind.PERMIT, Duration.ofSeconds(1))
                        .permits(info.permits())
                        .build());
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
