package dev.baton.tck;

import java.util.Objects;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Puts the backend into the message of every failing kit test. The kit's tests are methods of the
 * property classes behind {@link LockBackendContract}'s nested classes, so a stack trace, and
 * Maven's failure summary built from it, reads {@code
 * LockBackendContract$Timeouts>TimeoutProperty.tryAcquireIsEmptyWhileAnotherClientHolds:34} for
 * every backend alike; with this, the message that follows starts with {@code
 * [PostgresTableContractTest: jdbc-table on PostgreSQL]}. (Report files and console lines carry the
 * test class through Surefire's display names, see the parent pom.)
 *
 * <p>The original exception stays the cause and its stack trace is kept, so the line numbers do not
 * move. Assertion failures stay failures; other exceptions stay errors. What the fixture can tell
 * about the server at that moment ({@link LockBackendFixture#serverState()}) follows as a suppressed
 * exception.
 */
final class BackendInFailures implements TestExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        if (thrown instanceof TestAbortedException) {
            throw thrown;
        }
        LockBackendContract contract = context.getRequiredTestInstances().getAllInstances().stream()
                .filter(LockBackendContract.class::isInstance)
                .map(LockBackendContract.class::cast)
                .findFirst()
                .orElse(null);
        if (contract == null) {
            throw thrown;
        }
        String backend;
        try {
            backend = contract.getClass().getSimpleName() + ": "
                    + contract.fixture().name();
        } catch (RuntimeException e) {
            backend = contract.getClass().getSimpleName();
        }
        String prefix = "[" + backend + "] ";
        Throwable named = thrown instanceof AssertionError
                ? new AssertionError(prefix + Objects.toString(thrown.getMessage(), ""), thrown)
                : new BackendTestError(prefix + thrown, thrown);
        named.setStackTrace(thrown.getStackTrace());
        String state = serverState(contract);
        if (!state.isEmpty()) {
            named.addSuppressed(new ServerState(state));
        }
        throw named;
    }

    private static String serverState(LockBackendContract contract) {
        try {
            return contract.fixture().serverState();
        } catch (RuntimeException e) {
            return "the server's state could not be read: " + e;
        }
    }

    /** The server's sessions and locks when a kit test failed ({@link LockBackendFixture#serverState()}). */
    static final class ServerState extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ServerState(String state) {
            super("the server when the test failed:\n" + state, null, false, false);
        }
    }

    /** An error (not an assertion failure) of a kit test, named with its backend. */
    static final class BackendTestError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BackendTestError(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
