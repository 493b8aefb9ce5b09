package sample;

import dev.baton.locked.LockedContext;
import dev.baton.spring.Locked;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/** An application whose LockClient comes from baton.uri. */
@SpringBootApplication
public class SampleApplication {

    @Service
    public static class Billing {
        @Locked(name = "invoice-#{#invoiceId}", waitTime = "10s")
        public long bill(long invoiceId) {
            return LockedContext.fencingToken();
        }
    }
}
