package sample;

import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        Locks.takeAndRelease("redis", Locks.uri("BATON_SAMPLE_REDIS_URI"));
    }
}
