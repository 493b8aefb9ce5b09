package dev.baton.quarkus.test;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.locked.LockedContext;
import dev.baton.quarkus.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

// The example of docs/frameworks/quarkus.md, compiled here and run by LockedOnH2Test.
// snippet:start locked
@ApplicationScoped
public class Billing {

    @Inject
    LockClient locks; // the extension's client, for locks taken in code

    @Locked(name = "invoice-#{#invoiceId}", waitTime = "5s")
    public long bill(long invoiceId) {
        long token = LockedContext.fencingToken(); // strictly higher for every new holder
        return token; // e.g. store.write(invoiceId, amount, token)
    }

    public long rebuildIndex() {
        try (Lease lease = locks.lock("search-index").acquire(Duration.ofSeconds(5))) {
            return lease.fencingToken(); // e.g. index.rebuild(lease.fencingToken())
        }
    }
}
// snippet:end locked
