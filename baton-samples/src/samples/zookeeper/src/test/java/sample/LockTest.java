package sample;

import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        Locks.takeAndRelease("zookeeper", Locks.uri("BATON_SAMPLE_ZOOKEEPER_URI"));
    }
}
