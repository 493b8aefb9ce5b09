package dev.baton.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ForkedJavaTest {

    /** The child: says it is ready, then waits for its standard input to close. */
    public static final class Child {
        public static void main(String[] args) throws IOException {
            System.out.println("ready");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for end of input
            }
        }
    }

    @Test
    void killEndsAChildStoppedWithSigstop() throws Exception {
        CountDownLatch ready = new CountDownLatch(1);
        try (ForkedJava child = ForkedJava.start(Child.class.getName(), List.of(), List.of(), line -> {
            if (line.equals("ready")) {
                ready.countDown();
            }
        })) {
            Await.condition(
                    "the child to be ready",
                    TestTime.COLD_START,
                    () -> ready.getCount() == 0,
                    () -> "; stderr: " + child.stderrTail());
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(child.pid())).start();
            assertThat(stop.waitFor()).as("kill -STOP").isZero();

            child.kill();

            assertThat(child.isAlive()).isFalse();
            assertThat(child.awaitExit(Duration.ZERO)).hasValue(137);
        }
    }

    @Test
    void aChildExitsWhenItsInputCloses() throws Exception {
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ForkedJava child = ForkedJava.start(Child.class.getName(), List.of(), List.of(), lines::add)) {
            child.closeInput();
            assertThat(child.awaitExit(TestTime.COLD_START)).hasValue(0);
            assertThat(lines).containsExactly("ready");
        }
    }
}
