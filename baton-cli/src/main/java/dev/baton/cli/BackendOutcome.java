package dev.baton.cli;

import dev.baton.bench.ScenarioResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What {@code baton bench} found for one backend: its measured rows, or why it was skipped.
 *
 * @param backend the backend id
 * @param skipped why the backend was not measured, or null
 * @param results the rows, all subjects and scenarios
 * @param recovery per subject, the recovery time after a holder was killed, or a reason it is n/a
 * @param consistency the backend's consistency model
 * @param waiters how waiters learn of a release
 */
record BackendOutcome(
        String backend,
        String skipped,
        List<ScenarioResult> results,
        Map<String, String> recovery,
        String consistency,
        String waiters) {

    static BackendOutcome skipped(String backend, String reason) {
        return new BackendOutcome(backend, reason, List.of(), Map.of(), "", "");
    }

    static String formatRecovery(Duration duration) {
        return String.format(java.util.Locale.ROOT, "%.2f s", duration.toMillis() / 1000.0);
    }
}
