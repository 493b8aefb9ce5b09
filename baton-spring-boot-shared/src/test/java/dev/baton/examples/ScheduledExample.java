package dev.baton.examples;

import dev.baton.spring.Locked;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

// The @Scheduled example of docs/frameworks/spring-boot.md and docs/migration/from-shedlock.md,
// compiled on both Boot lines; outside dev.baton.spring so that no test application scans it.
class ScheduledExample {

    // snippet:start scheduled
    @Service
    static class Reports {
        // Every node fires the trigger; one runs the job, the others skip the run quietly, and no
        // node runs it again within 30 s of its start.
        @Scheduled(cron = "0 0 2 * * *")
        @Locked(name = "nightly-report", skipIfLocked = true, lockAtLeastFor = "30s")
        public void nightlyReport() {
            // the job
        }
    }
    // snippet:end scheduled
}
