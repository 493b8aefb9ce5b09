package dev.baton.docs;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.shedlock.BatonLockProvider;
import java.time.Duration;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The side-by-side code of docs/migration/from-shedlock.md: ShedLock's provider first, then Baton's. */
class FromShedLockSnippets {

    @Configuration
    static class Before {
        // snippet:start shedlock-provider
        @Bean
        LockProvider lockProvider(DataSource dataSource) {
            return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(dataSource))
                    .usingDbTime()
                    .build());
        }
        // snippet:end shedlock-provider
    }

    @Configuration
    static class After {
        // snippet:start baton-provider
        @Bean(destroyMethod = "close") // with baton-spring-boot-starter, this bean comes from baton.uri instead
        LockClient lockClient() {
            return Baton.connect("jdbc:postgresql://db:5432/app?user=app&password=secret");
        }

        @Bean
        LockProvider lockProvider(LockClient client) {
            return new BatonLockProvider(client);
        }
        // snippet:end baton-provider
    }

    // snippet:start scheduled-job
    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30M")
    static class NightlyJobs {
        @Scheduled(cron = "0 0 2 * * *")
        @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT30M", lockAtLeastFor = "PT5M")
        public void nightlyReport() {
            // runs on one node; the others skip this run
        }
    }
    // snippet:end scheduled-job

    interface Store {
        void write(String data, long fencingToken);
    }

    static void fencedJob(LockClient client, Store store, String report) {
        // snippet:start baton-fenced-job
        try (Lease lease = client.lock("nightly-report").acquire(Duration.ofSeconds(5))) { // waits, unlike ShedLock
            store.write(report, lease.fencingToken()); // a late writer from a paused node is refused
        }
        // snippet:end baton-fenced-job
    }
}
