package dev.baton.reactor;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;

/**
 * {@link ReactiveLocks} on H2 in memory, baton-jdbc's default {@code table} strategy: waiters stand
 * in the waiters table's line.
 */
class ReactiveLocksH2Test extends ReactiveLocksContract {
    @Override
    LockClient connect(LockOptions options) {
        return Baton.connect("jdbc:h2:mem:baton-reactor;DB_CLOSE_DELAY=-1", options);
    }
}
