package dev.baton.check;

import java.time.Duration;
import java.util.List;

/** Manual runner while developing: java -cp ... CheckSmokeRunner target fault,fault seconds */
final class CheckSmokeRunner {
    public static void main(String[] args) throws Exception {
        CheckSettings settings = new CheckSettings(
                4, Duration.ofSeconds(Long.parseLong(args[2])), Duration.ofSeconds(1), Duration.ofMillis(20), 2, 7);
        List<Fault> faults = java.util.Arrays.stream(args[1].split(","))
                .map(f -> Fault.valueOf(f.toUpperCase()))
                .toList();
        List<CheckRow> rows = CheckSuite.run(
                List.of(new CheckSuite.PlannedRun(args[0], faults)), settings, new CheckSuite.Progress() {
                    @Override
                    public void started(int index, int total, CheckSuite.PlannedRun run) {
                        System.out.println("start " + run);
                    }

                    @Override
                    public void running(double fraction) {}

                    @Override
                    public void finished(CheckRow row) {
                        System.out.println(row.verdict() + " " + row.faultsInjected() + " " + row.result() + " "
                                + row.violations());
                    }
                });
        System.exit(rows.isEmpty() ? 1 : 0);
    }
}
