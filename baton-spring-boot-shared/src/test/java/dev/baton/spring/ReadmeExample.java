package dev.baton.spring;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

// The example of this module's README.md, compiled and run by ReadmeExampleTest.
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
