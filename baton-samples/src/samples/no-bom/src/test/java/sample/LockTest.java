package sample;

import dev.baton.Baton;
import dev.baton.LockClient;
import org.junit.jupiter.api.Test;

class LockTest {

    /** A Redis lock and a ZooKeeper lock in one application, both clients open at once, then the others. */
    @Test
    void takesAndReleasesALockOnEachBackend() {
        try (LockClient zookeeper = Baton.connect(Locks.uri("BATON_SAMPLE_ZOOKEEPER_URI"));
                LockClient redis = Baton.connect(Locks.uri("BATON_SAMPLE_REDIS_URI"))) {
            Locks.takeAndRelease("zookeeper", zookeeper);
            Locks.takeAndRelease("redis", redis);
        }
        Locks.takeAndRelease("etcd", Locks.uri("BATON_SAMPLE_ETCD_URI"));
        Locks.takeAndRelease("azure", Locks.uri("BATON_SAMPLE_AZURE_URI"));
        Locks.takeAndRelease("h2", "jdbc:h2:mem:sample;DB_CLOSE_DELAY=-1");
    }
}
