package dev.baton.docs;

// The first lock of README.md and docs/getting-started.md, run by GettingStartedTest.
// snippet:start first-lock
import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;

public class FirstLock {
    public static void main(String[] args) throws InterruptedException {
        String uri = args.length > 0 ? args[0] : "jdbc:h2:mem:locks"; // no server: H2 inside this JVM
        try (LockClient client = Baton.connect(uri)) {
            DistributedLock lock = client.lock("nightly-report"); // a handle: no I/O yet
            try (Lease lease = lock.acquire(Duration.ofSeconds(30))) { // waits up to 30 s for the lock
                System.out.println("holding " + lease.name() + ", fencing token " + lease.fencingToken());
                Thread.sleep(3_000); // the work the lock protects
            } // released here, also when the work throws
        }
    }
}
// snippet:end first-lock
