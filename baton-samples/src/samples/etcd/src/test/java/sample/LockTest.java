package sample;

import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        Locks.takeAndRelease("etcd", Locks.uri("BATON_SAMPLE_ETCD_URI"));
    }
}
