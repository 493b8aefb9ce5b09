package dev.baton.spring;

import dev.baton.LockOptions;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code baton.*} properties from which {@link BatonAutoConfiguration} builds the application's
 * {@link dev.baton.LockClient}. Durations take Spring Boot's forms ({@code 30s}, {@code 500ms},
 * {@code PT30S}). Every option but {@code baton.uri} has {@link LockOptions}' default.
 *
 * <p>Values are checked when the client is created: a missing or malformed {@code baton.uri}, or a
 * zero or negative duration, fails the application's startup with a message that names the
 * property.
 */
@ConfigurationProperties(prefix = "baton")
public class BatonProperties {

    /**
     * URI of the lock backend, e.g. jdbc:postgresql://db:5432/app?user=app, jdbc:h2:mem:locks,
     * redis://host:6379, zookeeper://zk1:2181/app, etcd://host:2379. Required.
     */
    private String uri;

    /** How long a lock stays held on the backend without renewal; after it others may take it. */
    private Duration leaseTime = Duration.ofSeconds(30);

    /** Whether held leases are renewed at a third of the lease time until they are released. */
    private boolean autoRenew = true;

    /** The bound on one backend round trip; past it the operation fails as unavailable. */
    private Duration operationTimeout = Duration.ofSeconds(5);

    /** First pause between two attempts of a waiter on a backend that can only be polled. */
    private Duration pollInitialDelay = Duration.ofMillis(10);

    /** Cap of the growing, jittered pause between two attempts of a polling waiter. */
    private Duration pollMaxDelay = Duration.ofMillis(500);

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = uri;
    }

    public Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public boolean isAutoRenew() {
        return autoRenew;
    }

    public void setAutoRenew(boolean autoRenew) {
        this.autoRenew = autoRenew;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public Duration getPollInitialDelay() {
        return pollInitialDelay;
    }

    public void setPollInitialDelay(Duration pollInitialDelay) {
        this.pollInitialDelay = pollInitialDelay;
    }

    public Duration getPollMaxDelay() {
        return pollMaxDelay;
    }

    public void setPollMaxDelay(Duration pollMaxDelay) {
        this.pollMaxDelay = pollMaxDelay;
    }
}
