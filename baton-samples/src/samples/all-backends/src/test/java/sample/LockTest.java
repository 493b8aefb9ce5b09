package sample;

import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        Locks.takeAndRelease("postgresql", Locks.uri("BATON_SAMPLE_POSTGRES_URI"));
        Locks.takeAndRelease("h2", "jdbc:h2:mem:sample;DB_CLOSE_DELAY=-1");
        Locks.takeAndRelease("redis", Locks.uri("BATON_SAMPLE_REDIS_URI"));
        Locks.takeAndRelease("zookeeper", Locks.uri("BATON_SAMPLE_ZOOKEEPER_URI"));
        Locks.takeAndRelease("azure", Locks.uri("BATON_SAMPLE_AZURE_URI"));
        Locks.takeAndRelease("etcd", Locks.uri("BATON_SAMPLE_ETCD_URI"));
    }
}
