package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.servers.RedisServer;
import dev.baton.tck.KitTime;
import dev.baton.testsupport.ForkedJava;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lettuce 7 on Netty 4.1, the class path of an application whose BOM pins Netty 4.1 but not Lettuce
 * (Quarkus 3's line): {@code Baton.connect} fails at once naming both versions and the fix, and a
 * backend made past that check fails its first call within the operation timeout with {@link
 * dev.baton.LockUnavailableException} saying the same, instead of never returning or timing out as if
 * another owner held the lock. Each case runs {@link NettyLineProbe} in a child JVM: this JVM's class
 * path with the Netty jars that Netty 4.1 also has swapped for their 4.1 release (copied to {@code
 * baton.redis.netty41} by the build), as Maven resolves such an application.
 */
class NettyLineTest {
    private static final Pattern NETTY_JAR =
            Pattern.compile("(netty-[a-z0-9-]+?)-4\\.2\\.\\d+\\.Final(-[a-z0-9_]+)?\\.jar");

    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void onNetty41ConnectFailsAtOnceAndTheFirstCallFailsWithinTheOperationTimeout() throws Exception {
        Path netty41 = Path.of(System.getProperty("baton.redis.netty41", "target/netty-4.1"));
        String version = netty41Version(netty41);

        Map<String, String> steps = probe(netty41ClassPath(netty41));

        assertThat(steps.get("connect"))
                .as("Baton.connect on Netty 4.1")
                .contains("LockConfigurationException: Baton.connect(" + server.uri() + "): Lettuce 7.")
                .contains("needs Netty 4.2, but this class path has Netty " + version)
                .contains("MultiThreadIoEventLoopGroup")
                .contains("dev.baton:baton-bom")
                .contains("manage io.lettuce:lettuce-core at 6.8.x");
        for (String call : List.of("tryAcquire", "acquire")) {
            assertThat(steps.get(call))
                    .as("%s on a backend made past the check", call)
                    .contains("LockUnavailableException: Baton lock 'probe' on redis ")
                    .contains("needs Netty 4.2, but this class path has Netty " + version)
                    .doesNotContain("another owner");
            assertThat(millis(steps.get(call)))
                    .as("%s's time, against the operation timeout's bound", call)
                    .isLessThanOrEqualTo(KitTime.grant().toMillis());
        }
    }

    /** The same probe on the build's own Netty: it connects and takes the lock, so the case above tests Netty 4.1. */
    @Test
    void onTheBuildsNettyTheProbeTakesTheLock() throws Exception {
        Map<String, String> steps = probe(System.getProperty("java.class.path"));

        assertThat(steps.get("connect")).endsWith(": ok");
        assertThat(steps.get("tryAcquire")).endsWith(": granted");
        assertThat(steps.get("acquire")).endsWith(": granted");
    }

    /** Runs {@link NettyLineProbe} on {@code classPath}; its lines by step. */
    private static Map<String, String> probe(String classPath) throws InterruptedException {
        Map<String, String> steps = new ConcurrentHashMap<>();
        List<String> args = List.of(
                server.uri(),
                KitTime.grant().toString(),
                KitTime.operationTimeout().toString());
        try (ForkedJava child = ForkedJava.start(
                classPath,
                NettyLineProbe.class.getName(),
                List.of(),
                args,
                line -> steps.put(line.substring(0, Math.max(0, line.indexOf(' '))), line))) {
            OptionalInt exit =
                    child.awaitExit(KitTime.COLD_START.plus(KitTime.grant().multipliedBy(2)));
            assertThat(exit)
                    .as("the probe's exit; its lines: %s; its standard error ends:%n%s", steps, child.stderrTail())
                    .hasValue(0);
        }
        return steps;
    }

    private static long millis(String line) {
        Matcher m = Pattern.compile("^\\S+ (\\d+) ms: ").matcher(line);
        assertThat(m.find()).as("a probe line: %s", line).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String netty41Version(Path dir) throws IOException {
        try (Stream<Path> jars = Files.list(dir)) {
            return jars.map(jar -> jar.getFileName().toString())
                    .filter(name -> name.startsWith("netty-common-4.1."))
                    .map(name -> name.substring("netty-common-".length(), name.length() - ".jar".length()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no netty-common 4.1 jar in " + dir));
        }
    }

    /**
     * This JVM's class path with each Netty 4.2 jar that has a 4.1 release in {@code netty41} swapped
     * for it, the 4.2-only ones (netty-codec-base) kept, and the 4.2 native epoll library dropped
     * (Lettuce then runs on NIO, as without it).
     */
    private static String netty41ClassPath(Path netty41) throws IOException {
        String version = netty41Version(netty41);
        List<String> entries = new ArrayList<>();
        int swapped = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Matcher jar = NETTY_JAR.matcher(Path.of(entry).getFileName().toString());
            if (!jar.matches()) {
                entries.add(entry);
                continue;
            }
            if (jar.group(1).equals("netty-transport-native-epoll")) {
                continue;
            }
            Path older = netty41.resolve(jar.group(1) + "-" + version + ".jar");
            if (Files.exists(older)) {
                entries.add(older.toString());
                swapped++;
            } else {
                entries.add(entry);
            }
        }
        assertThat(swapped).as("Netty jars swapped for %s", version).isGreaterThanOrEqualTo(8);
        Path codec = netty41.resolve("netty-codec-" + version + ".jar");
        if (!entries.contains(codec.toString())) {
            entries.add(codec.toString()); // netty-handler 4.1 needs it; on 4.2 it is netty-codec-base
        }
        return String.join(File.pathSeparator, entries);
    }
}
