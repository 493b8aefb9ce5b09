package dev.baton.shedlock;

import dev.baton.Baton;
import dev.baton.LockClient;

/** {@link BatonLockProvider} on H2 in memory, baton-jdbc's default {@code table} strategy. */
class BatonLockProviderH2Test extends BatonLockProviderContract {
    @Override
    LockClient connect() {
        return Baton.connect("jdbc:h2:mem:baton-shedlock;DB_CLOSE_DELAY=-1");
    }
}
