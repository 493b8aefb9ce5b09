package dev.baton.jdbc;

import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.util.Optional;

/**
 * The protocol of the strategies whose grant holds a connection ({@link PgAdvisoryProtocol}, {@link
 * MariaDbNamedLockProtocol}, {@link PessimisticProtocol}): waiters wait in the database's own queue,
 * one blocking call on a connection of their own each ({@link dev.baton.spi.Waiting#blocking}).
 */
interface PinningProtocol extends JdbcProtocol {

    /**
     * Waits in the database's own queue, at most {@code timeoutNanos} (negative: without limit).
     *
     * @throws InterruptedException if interrupted, after the wait was withdrawn
     */
    Optional<Grant> acquire(LockRequest request, long timeoutNanos) throws InterruptedException;
}
