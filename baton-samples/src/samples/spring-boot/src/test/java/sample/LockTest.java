package sample;

import dev.baton.LockClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

class LockTest {

    @Test
    void takesAndReleasesALockOnEachBackend() {
        String redis = Locks.uri("BATON_SAMPLE_REDIS_URI");
        try (ConfigurableApplicationContext context = SpringApplication.run(
                SampleApplication.class, "--baton.uri=" + redis, "--spring.main.banner-mode=off")) {
            SampleApplication.Billing billing = context.getBean(SampleApplication.Billing.class);
            long first = billing.bill(42);
            long second = billing.bill(42);
            if (second <= first) {
                throw new AssertionError("@Locked: fencing token " + second + " after " + first);
            }
            System.out.println("baton-sample: redis ran a @Locked method twice (fencing tokens " + first + ", "
                    + second + ")");
            Locks.takeAndRelease("redis", context.getBean(LockClient.class));
        }
        Locks.takeAndRelease("etcd", Locks.uri("BATON_SAMPLE_ETCD_URI"));
    }
}
