package sample;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;

/** Takes one lock on a backend, releases it, and takes it again to show that the release was real. */
final class Locks {

    private Locks() {}

    /** The URI of a server the consumer build started for this sample, from the environment. */
    static String uri(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(variable + " is not set: baton-samples' ConsumerBuildsTest sets it to"
                    + " the URI of a server it started; to run this sample alone, set it to a server's URI");
        }
        return value;
    }

    static void takeAndRelease(String backend, String uri) {
        try (LockClient client = Baton.connect(uri)) {
            takeAndRelease(backend, client);
        }
    }

    static void takeAndRelease(String backend, LockClient client) {
        String name = "sample-" + backend;
        DistributedLock lock = client.lock(name);
        long first;
        try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
            lease.checkValid();
            first = lease.fencingToken();
        }
        long second;
        try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
            second = lease.fencingToken();
        }
        if (second <= first) {
            throw new AssertionError(backend + ": fencing token " + second + " after " + first);
        }
        System.out.println("baton-sample: " + backend + " took and released lock " + name + " (fencing tokens "
                + first + ", " + second + ")");
    }
}
