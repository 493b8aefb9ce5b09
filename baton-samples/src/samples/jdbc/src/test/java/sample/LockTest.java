package sample;

import org.junit.jupiter.api.Test;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        Locks.takeAndRelease("postgresql", Locks.uri("BATON_SAMPLE_POSTGRES_URI"));
        Locks.takeAndRelease("h2", "jdbc:h2:mem:sample;DB_CLOSE_DELAY=-1");
    }
}
