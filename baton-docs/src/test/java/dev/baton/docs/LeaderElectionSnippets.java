package dev.baton.docs;

import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LockClient;
import dev.baton.LockLostException;
import java.util.OptionalLong;

/** The snippets of docs/leader-election.md; LeaderElectionSnippetsTest runs them on H2. */
class LeaderElectionSnippets {
    interface Scheduler {
        void resume(long epoch);

        void pause();
    }

    interface Store {
        void write(String batch, long epoch);
    }

    static Leadership stand(LockClient client, Scheduler scheduler) {
        // snippet:start leadership
        Leadership leadership = client.leadership("invoice-scheduler")
                .addListener(new LeadershipListener() {
                    @Override
                    public void elected(long epoch) {
                        scheduler.resume(epoch);
                    }

                    @Override
                    public void revoked(long epoch, Reason reason, LockLostException cause) {
                        scheduler.pause();
                    }
                })
                .start();
        // snippet:end leadership
        return leadership;
    }

    static boolean leaderOnlyWork(Leadership leadership, Store store, String batch) {
        // snippet:start epoch
        OptionalLong epoch = leadership.epoch(); // empty unless this process leads now
        if (epoch.isPresent()) {
            store.write(batch, epoch.getAsLong()); // the store refuses an epoch lower than the highest it saw
        }
        // snippet:end epoch
        return epoch.isPresent();
    }
}
