package dev.baton.spring;

import dev.baton.locked.LockedContext;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

// The example of docs/getting-started.md and docs/frameworks/spring-boot.md, compiled and run by
// ReadmeExampleTest on both Boot lines.
// snippet:start locked
@SpringBootApplication
class ReadmeExample {

    @Service
    static class Billing {
        @Locked(name = "invoice-#{#invoiceId}", waitTime = "5s")
        public long bill(long invoiceId) {
            long token = LockedContext.fencingToken(); // strictly higher for every new holder
            return token; // e.g. store.write(invoiceId, amount, token)
        }
    }
}
// snippet:end locked
