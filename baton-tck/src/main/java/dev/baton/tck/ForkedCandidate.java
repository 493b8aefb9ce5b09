package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The candidate the kit forks for {@link LeadershipProperty}: {@code URI NAME LEASE_MS} stands for
 * election and prints {@code STANDING}, then {@code ELECTED <epoch>} and {@code REVOKED <epoch>
 * <reason>} as its listener hears them; when its standard input closes it resigns, prints {@code
 * CLOSED} and exits.
 */
public final class ForkedCandidate {
    private ForkedCandidate() {}

    /**
     * Stands for election until standard input closes.
     *
     * @param args {@code URI NAME LEASE_MS}
     * @throws IOException if standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        ColdStart.warmUp(args[0], lease);
        LockClient client = Baton.connect(args[0], options(lease));
        Leadership leadership = stand(client, args[1], ForkedCandidate::say);
        say("STANDING");
        while (System.in.read() != -1) {
            // the parent closes our input to make us resign
        }
        leadership.close();
        say("CLOSED");
        client.close();
        System.exit(0);
    }

    /** A candidate's options: the property's lease, the kit's operation timeout, quick polling. */
    static LockOptions options(Duration lease) {
        return LockOptions.builder()
                .leaseTime(lease)
                .operationTimeout(KitTime.operationTimeout())
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
    }

    /**
     * Stands for {@code name} on {@code client}; says {@code ELECTED <epoch>} and {@code REVOKED
     * <epoch> <reason>} as the listener hears them (the kit's follower stands in its own JVM the same
     * way).
     */
    static Leadership stand(LockClient client, String name, Consumer<String> say) {
        Leadership leadership = client.leadership(name).addListener(new LeadershipListener() {
            @Override
            public void elected(long epoch) {
                say.accept("ELECTED " + epoch);
            }

            @Override
            public void revoked(long epoch, Reason reason, LockLostException cause) {
                say.accept("REVOKED " + epoch + " " + reason);
            }
        });
        leadership.start();
        return leadership;
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
