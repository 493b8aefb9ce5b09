package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A bench's options: known names with values, defaults for the rest, and a clear error otherwise. */
class BenchArgsTest {

    @Test
    void readsEachKnownOptionAndKeepsTheDefaultsOfTheOthers() {
        BenchArgs options = BenchArgs.parse(
                new String[] {"--backends", "redis,postgres", "--leases", "10,20", "--lease", "2s"},
                "--backends",
                "--leases",
                "--lease",
                "--peers",
                "--names");
        assertThat(options.list("--backends", List.of("etcd"))).containsExactly("redis", "postgres");
        assertThat(options.counts("--leases", List.of(1))).containsExactly(10, 20);
        assertThat(options.duration("--lease", Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.flag("--peers", true)).isTrue();
        assertThat(options.count("--names", 7)).isEqualTo(7);
    }

    @Test
    void anUnknownOptionOrAMissingValueFailsNamingIt() {
        assertThatThrownBy(() -> BenchArgs.parse(new String[] {"--leses", "10"}, "--leases"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option --leses")
                .hasMessageContaining("--leases");
        assertThatThrownBy(() -> BenchArgs.parse(new String[] {"--leases"}, "--leases"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("option --leases needs a value");
    }
}
