package dev.baton.redis;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * The child JVM of {@link NettyLineTest}: on the class path it was started with, connects to the
 * Redis at {@code args[0]} and takes a lock, printing one line per step ({@code <step> <ms> ms:
 * <outcome>}). Arguments: the URI, the acquire's timeout and the operation timeout (ISO-8601).
 */
final class NettyLineProbe {
    private NettyLineProbe() {}

    public static void main(String[] args) {
        String uri = args[0];
        Duration wait = Duration.parse(args[1]);
        LockOptions options =
                LockOptions.builder().operationTimeout(Duration.parse(args[2])).build();
        report("connect", () -> {
            try (LockClient client = Baton.connect(uri, options)) {
                return "ok";
            }
        });
        // The backend made directly, past the check Baton.connect makes: its first call meets
        // whatever Lettuce cannot load.
        RedisLockBackend backend = new RedisLockBackend(
                "redis", RedisURI.create(uri), "baton:", options.operationTimeout(), 0, true, options.pollMaxDelay());
        try (LockClient client = Baton.open(backend, options)) {
            report("tryAcquire", () -> client.lock("probe")
                    .tryAcquire()
                    .map(lease -> {
                        lease.close();
                        return "granted";
                    })
                    .orElse("empty"));
            report("acquire", () -> {
                try (Lease lease = client.lock("probe").acquire(wait)) {
                    return "granted";
                }
            });
        }
        System.exit(0);
    }

    private static void report(String step, Callable<String> call) {
        long start = System.nanoTime();
        String outcome;
        try {
            outcome = call.call();
        } catch (Throwable e) {
            outcome = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(step + " " + (System.nanoTime() - start) / 1_000_000 + " ms: " + outcome);
    }
}
