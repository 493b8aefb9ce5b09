package dev.baton.quarkus.runtime;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code baton.*} properties from which the extension builds the application's {@link
 * dev.baton.LockClient}: the same names and defaults as the Spring Boot starters'. Durations take
 * Quarkus' forms ({@code 30s}, {@code 500ms}, {@code PT30S}). Read at run time, so one build runs
 * against any backend the class path serves.
 *
 * <p>Values are checked when the application starts: a missing or malformed {@code baton.uri}, or a
 * zero or negative duration, fails the startup with a message that names the property.
 */
@ConfigMapping(prefix = "baton")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface BatonConfig {

    /**
     * URI of the lock backend, e.g. jdbc:postgresql://db:5432/app?user=app, jdbc:h2:mem:locks,
     * redis://host:6379, zookeeper://zk1:2181/app, etcd://host:2379. Required.
     *
     * @return the URI, empty when it is not set
     */
    Optional<String> uri();

    /**
     * How long a lock stays held on the backend without renewal; after it others may take it.
     *
     * @return the lease time
     */
    @WithDefault("30s")
    Duration leaseTime();

    /**
     * Whether held leases are renewed at a third of the lease time until they are released.
     *
     * @return whether leases are renewed
     */
    @WithDefault("true")
    boolean autoRenew();

    /**
     * The bound on one backend round trip; past it the operation fails as unavailable.
     *
     * @return the bound
     */
    @WithDefault("5s")
    Duration operationTimeout();

    /**
     * First pause between two attempts of a waiter on a backend that can only be polled.
     *
     * @return the first pause
     */
    @WithDefault("10ms")
    Duration pollInitialDelay();

    /**
     * Cap of the growing, jittered pause between two attempts of a polling waiter.
     *
     * @return the cap
     */
    @WithDefault("500ms")
    Duration pollMaxDelay();

    /**
     * The application's name in the holder description of every lock it takes, which {@code baton
     * locks} shows (at most 40 characters). Default: none.
     *
     * @return the name, empty for none
     */
    Optional<String> clientName();

    /**
     * Whether a waiter on another client comes before an immediate re-acquire by the client that just
     * released; false allows barging (more throughput, possible starvation).
     *
     * @return whether waiters on other clients come first
     */
    @WithDefault("true")
    boolean fair();
}
