package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.LockConfigurationException;
import dev.baton.spi.LockBackendProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * A misspelt URI option is a usage error on every backend: one line naming the option and the nearest
 * one, exit 64, before any connection (it was 69, "unavailable", after a connection attempt on H2).
 */
class BadUriOptionTest {

    @Test
    void aMisspeltJdbcOptionExits64InOneLine() {
        CliRun run = CliRun.of("exec", "--uri", "jdbc:h2:mem:cli-bad;leaseTme=10s", "--name", "job", "--", "true");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err().lines().toList()).singleElement().satisfies(line -> assertThat(line)
                .startsWith("baton exec: Baton JDBC URL jdbc:h2:mem:cli-bad;leaseTme=10s: 'leaseTme' is not a"
                        + " URI option (did you mean 'leaseTime'?)"));
        CliRun status = CliRun.of("status", "--uri", "jdbc:postgresql://127.0.0.1:1/db?stratgy=advisory", "job");
        assertThat(status.exitCode()).as(status.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(status.err()).contains("unknown option 'stratgy' (did you mean 'strategy'?)");
    }

    @Test
    void aMisspeltOptionOfAnotherBackendExits64Too() {
        CliRun run = CliRun.of("status", "--uri", "zookeeper://127.0.0.1:1?sesionTimeout=5s", "job");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("did you mean 'sessionTimeout'?");
    }

    /** The core's list of schemes, given in its unknown-scheme message, has every scheme a provider serves. */
    @Test
    void everySchemeOnTheClassPathIsOneBatonKnows() {
        String known;
        try {
            Baton.connect("nosuch://h").close();
            throw new AssertionError("nosuch:// was accepted");
        } catch (LockConfigurationException e) {
            known = e.getMessage().substring(e.getMessage().indexOf("schemes Baton knows"));
        }
        List<String> served = new ArrayList<>();
        ServiceLoader.load(LockBackendProvider.class).forEach(provider -> served.addAll(provider.schemes()));
        assertThat(served).hasSizeGreaterThan(10);
        for (String scheme : served) {
            assertThat(known).as(scheme).containsPattern("[\\[ ]" + java.util.regex.Pattern.quote(scheme) + "[,\\]]");
        }
    }
}
