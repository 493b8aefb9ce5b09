package sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;

class LockTest {

    @Test
    void theBoot4StarterRefusesToStartOnBoot35NamingTheBoot3Starter() {
        String boot = SpringBootVersion.getVersion();
        check(boot.startsWith("3.5."), "Spring Boot 3.5, got " + boot);
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        Throwable failure = null;
        try {
            SpringApplication.run(
                            SampleApplication.class, "--baton.uri=jdbc:h2:mem:wrong-line", "--spring.main.banner-mode=off")
                    .close();
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            System.setOut(out);
        }
        String report = printed.toString(StandardCharsets.UTF_8);
        System.out.print(report);
        check(failure != null, "the application started on Spring Boot " + boot + " with the Boot 4 starter");
        check(report.contains("APPLICATION FAILED TO START"), "no failure report");
        check(
                report.contains("dev.baton:baton-spring-boot-starter is built for Spring Boot 4, but this application"
                        + " runs Spring Boot " + boot + "; depend on dev.baton:baton-spring-boot3-starter"),
                "the report does not name the starter to use");
        check(report.contains("Replace dev.baton:baton-spring-boot-starter with dev.baton:baton-spring-boot3-starter"),
                "no action");
        System.out.println("baton-sample: wrong-boot-line refused at start, naming dev.baton:baton-spring-boot3-starter");
        Locks.takeAndRelease("h2", "jdbc:h2:mem:wrong-line-plain;DB_CLOSE_DELAY=-1");
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
