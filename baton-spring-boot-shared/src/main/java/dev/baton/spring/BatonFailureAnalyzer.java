package dev.baton.spring;

import dev.baton.LockConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a Baton configuration error that stopped the application (a bad {@code baton.*} property, a
 * bad {@link Locked} annotation, the starter of the other Spring Boot line) into Spring Boot's
 * "APPLICATION FAILED TO START" report: Baton's one-line message as the description, and what to
 * change as the action. Registered in {@code META-INF/spring.factories}.
 */
final class BatonFailureAnalyzer extends AbstractFailureAnalyzer<LockConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), action(cause), cause);
    }

    private static String action(LockConfigurationException cause) {
        String message = String.valueOf(cause.getMessage());
        if (cause instanceof WrongBootLineException) {
            return "Replace " + BootLine.ARTIFACT + " with " + BootLine.OTHER_ARTIFACT
                    + " in your build (the same version); the two starters hold the same classes, one for each"
                    + " Spring Boot line.";
        }
        if (message.startsWith("@Locked ")) {
            return "Correct the @Locked annotation named above (its name, waitTime, leaseTime, lockAtLeastFor or"
                    + " skipIfLocked); see the Javadoc of dev.baton.spring.Locked.";
        }
        if (message.contains("baton.")) {
            return "Correct the baton.* property named above in your application's configuration"
                    + " (application.properties or application.yml, or an environment variable such as"
                    + " BATON_URI); each baton.* property is listed, with its meaning, in your IDE's completion.";
        }
        return "Correct the Baton configuration named above: baton.uri and the baton.* properties, a"
                + " LockOptionsCustomizer bean, or the application's own LockClient bean.";
    }
}
