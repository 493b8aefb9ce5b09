package sample;

import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        Locks.takeAndRelease("azure", Locks.uri("BATON_SAMPLE_AZURE_URI"));
    }
}
