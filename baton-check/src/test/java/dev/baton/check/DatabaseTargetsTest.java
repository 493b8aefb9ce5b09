package dev.baton.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where the PostgreSQL targets' clients go: the JVM's shared server unless a run restarts it. */
class DatabaseTargetsTest {
    @Test
    void runsWithoutAServerFaultShareOneServerEachWithADatabaseOfItsOwnAndCannotRestartIt() {
        try (ServerTarget naive = (ServerTarget) DatabaseTargets.naiveRow();
                ServerTarget baton = (ServerTarget) DatabaseTargets.postgres()) {
            naive.start(Set.of(Fault.KILL));
            baton.start(Set.of(Fault.PAUSE, Fault.CUT));
            assertThat(naive.addresses()).isEqualTo(baton.addresses());
            assertThat(naive.uri(naive.addresses())).isNotEqualTo(baton.uri(baton.addresses()));
            assertThatThrownBy(() -> baton.hitServer(Fault.RESTART, new Random(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("postgres runs on the shared PostgreSQL server");
        }
    }
}
