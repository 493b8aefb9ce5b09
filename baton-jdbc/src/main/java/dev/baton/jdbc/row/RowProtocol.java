package dev.baton.jdbc.row;

import dev.baton.LockInfo;
import dev.baton.jdbc.internal.JdbcConnections;
import dev.baton.jdbc.internal.JdbcProtocol;
import dev.baton.jdbc.internal.PgNotifications;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The protocol of the row strategies ({@link TableProtocol}, {@link OptimisticProtocol}): a grant is
 * a row any connection can renew, release or delete, so grants are renewed many per statement
 * ({@link BatchRenewal}), broken by owner id, and waiters line up in the waiters table ({@link
 * JdbcLine}).
 */
public abstract class RowProtocol implements JdbcProtocol {
    /** The backend's parts it was built with. */
    final Context context;

    final JdbcConnections connections;
    final PgNotifications notifications;
    /** Fair: exclusive grants are handed over by the release; null otherwise. */
    final HandOff handOff;

    /** @param table whether these are the table strategy's rows, else the optimistic strategy's */
    RowProtocol(Context context, boolean table) {
        this.context = context;
        this.connections = context.connections();
        this.notifications = context.notifications();
        this.handOff = context.fair() ? HandOff.of(table, context) : null;
    }

    /** Renews many grants, the exclusive ones many per statement ({@link BatchRenewal}). */
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return new BatchRenewal(this).renewAll(grants, leaseTime);
    }

    /**
     * The statement that renews many exclusive grants at once up to its IN list (? = lease, then each
     * grant's {@link #renewKey}).
     */
    abstract String renewIn();

    /** The values of {@link #renewIn}'s IN list for one grant. */
    List<Object> renewKey(Grant grant) {
        return List.of(grant.name(), grant.ownerId());
    }

    /**
     * Breaks the grants of {@code name} ({@link dev.baton.spi.LockBackend#forceRelease}); permits are
     * broken by the backend. Lists the name and abandons each holder by owner id: grants live in rows
     * any connection can delete.
     */
    @Override
    public List<LockInfo> forceRelease(String name, String ownerId) {
        List<LockInfo> broken = new ArrayList<>();
        for (LockInfo info : list(name)) {
            if (!info.name().equals(name)) {
                continue;
            }
            List<dev.baton.Holder> hit = info.holders().stream()
                    .filter(h -> ownerId == null || h.ownerId().equals(ownerId))
                    .toList();
            for (dev.baton.Holder h : hit) {
                abandon(LockRequest.builder(name, h.ownerId(), info.kind(), Duration.ofSeconds(1))
                        .build());
            }
            if (!hit.isEmpty()) {
                broken.add(LockInfo.of(name, info.kind(), hit)
                        .withPermits(info.permits())
                        .withWaiters(info.waiters()));
            }
        }
        return broken;
    }

    /** The line's statements ({@link JdbcLine}). */
    abstract WaiterStatements waiters();

    /** The query, up to its IN list of names, returning the listed locks that are held ({@link JdbcLine}). */
    abstract String heldIn();
}
