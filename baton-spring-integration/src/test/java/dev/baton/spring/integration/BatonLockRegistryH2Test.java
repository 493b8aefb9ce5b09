package dev.baton.spring.integration;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;

/** {@link BatonLockRegistry} on H2 in memory, baton-jdbc's default {@code table} strategy. */
class BatonLockRegistryH2Test extends BatonLockRegistryContract {
    @Override
    LockClient connect(LockOptions options) {
        return Baton.connect("jdbc:h2:mem:baton-si;DB_CLOSE_DELAY=-1", options);
    }
}
