package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each backend tells before starting what {@link BenchBackend#start} returns: {@code baton bench}
 * plans its run and tells its length from it. Checked on the servers that need only a JDK, and on
 * etcd (Debian's etcd-server, which ./test installs).
 */
class PlannedSubjectsTest {

    @Test
    void theEmbeddedBackendsOfferTheSubjectsTheyPlan() {
        for (String id : List.of("h2", "postgres", "redis", "zookeeper", "etcd")) {
            try (BenchBackend backend = BenchBackends.all().get(id).get()) {
                BenchBackend.PlannedSubjects planned = backend.plannedSubjects(false);
                List<LockSubject> subjects = backend.start(null);
                try {
                    long baton = subjects.stream()
                            .filter(s -> s instanceof BatonSubject b && b.uri().isPresent())
                            .count();
                    long semaphores =
                            subjects.stream().filter(s -> s.runs(Scenario.S8)).count();
                    long contendedOnly =
                            subjects.stream().filter(s -> !s.runs(Scenario.A8)).count();
                    assertThat(new BenchBackend.PlannedSubjects(
                                    subjects.size(), (int) baton, (int) semaphores, (int) contendedOnly))
                            .as(
                                    "%s: subjects, Baton's, with semaphores (a backend that gained semaphores"
                                            + " raises its planned count)",
                                    id)
                            .isEqualTo(planned);
                } finally {
                    subjects.forEach(LockSubject::close);
                }
            }
        }
    }
}
