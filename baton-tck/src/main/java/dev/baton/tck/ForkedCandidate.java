package dev.baton.tck;

import dev.baton.Baton;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import dev.baton.LockOptions;
import java.io.IOException;
import java.time.Duration;

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
        ColdStart.warmUp(args[0], Duration.ofMillis(Long.parseLong(args[2])));
        LockOptions options = LockOptions.builder()
                .leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
                .operationTimeout(KitTime.OPERATION_TIMEOUT)
                .pollInitialDelay(Duration.ofMillis(5))
                .pollMaxDelay(Duration.ofMillis(50))
                .build();
        LockClient client = Baton.connect(args[0], options);
        Leadership leadership = client.leadership(args[1]).addListener(new LeadershipListener() {
            @Override
            public void elected(long epoch) {
                say("ELECTED " + epoch);
            }

            @Override
            public void revoked(long epoch, Reason reason, LockLostException cause) {
                say("REVOKED " + epoch + " " + reason);
            }
        });
        leadership.start();
        say("STANDING");
        while (System.in.read() != -1) {
            // the parent closes our input to make us resign
        }
        leadership.close();
        say("CLOSED");
        client.close();
        System.exit(0);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
