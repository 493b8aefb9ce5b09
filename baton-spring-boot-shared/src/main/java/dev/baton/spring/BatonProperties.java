package dev.baton.spring;

import dev.baton.LockOptions;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code baton.*} properties from which {@link BatonAutoConfiguration} builds the application's
 * {@link dev.baton.LockClient}: one for every {@link LockOptions} option ({@code baton.lease-time},
 * {@code baton.client-name}, {@code baton.fair}, ...), and, in one group per backend ({@code
 * baton.jdbc.*}, {@code baton.redis.*}, {@code baton.zookeeper.*}, {@code baton.etcd.*}, {@code
 * baton.azure.*}), one for every option of that backend's URI, added to {@code baton.uri}. Durations
 * take Spring Boot's forms ({@code 30s}, {@code 500ms}, {@code PT30S}). Every option but {@code
 * baton.uri} has {@link LockOptions}' or the backend's default.
 *
 * <p>Values are checked when the client is created: a missing or malformed {@code baton.uri}, a bad
 * value, a backend option set for another backend than the URI's or set both in the URI and as a
 * property fails the application's startup with a message that names the property.
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

    /**
     * The application's name in the holder description of every lock it takes, which baton locks
     * shows (at most 40 characters). Default: none.
     */
    private String clientName = "";

    /**
     * Whether a waiter on another client comes before an immediate re-acquire by the client that just
     * released; false allows barging (more throughput, possible starvation).
     */
    private boolean fair = true;

    /** The options of a JDBC baton.uri. */
    @NestedConfigurationProperty
    private final JdbcUriProperties jdbc = new JdbcUriProperties();

    /** The options of a Redis baton.uri. */
    @NestedConfigurationProperty
    private final RedisUriProperties redis = new RedisUriProperties();

    /** The options of a ZooKeeper baton.uri. */
    @NestedConfigurationProperty
    private final ZooKeeperUriProperties zookeeper = new ZooKeeperUriProperties();

    /** The options of an etcd baton.uri. */
    @NestedConfigurationProperty
    private final EtcdUriProperties etcd = new EtcdUriProperties();

    /** The options of an Azure Blob baton.uri. */
    @NestedConfigurationProperty
    private final AzureUriProperties azure = new AzureUriProperties();

    /**
     * {@return the URI of the lock backend ({@code baton.uri}), or {@code null} when it is not set}
     */
    public String getUri() {
        return uri;
    }

    /**
     * Sets {@link #getUri()}.
     *
     * @param uri the backend URI, such as {@code jdbc:postgresql://db:5432/app}; blank fails startup
     */
    public void setUri(String uri) {
        this.uri = uri;
    }

    /**
     * {@return how long a lock stays held without renewal ({@code baton.lease-time}); default 30 s}
     */
    public Duration getLeaseTime() {
        return leaseTime;
    }

    /**
     * Sets {@link #getLeaseTime()}.
     *
     * @param leaseTime the lease time; zero or negative fails startup
     */
    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    /**
     * {@return whether held leases are renewed ({@code baton.auto-renew}); default {@code true}}
     */
    public boolean isAutoRenew() {
        return autoRenew;
    }

    /**
     * Sets {@link #isAutoRenew()}.
     *
     * @param autoRenew {@code false} to let every lease expire after its lease time
     */
    public void setAutoRenew(boolean autoRenew) {
        this.autoRenew = autoRenew;
    }

    /**
     * {@return the bound on one backend round trip ({@code baton.operation-timeout}); default 5 s}
     */
    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    /**
     * Sets {@link #getOperationTimeout()}.
     *
     * @param operationTimeout the bound; zero or negative fails startup
     */
    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    /**
     * {@return the first pause of a polling waiter ({@code baton.poll-initial-delay}); default 10 ms}
     */
    public Duration getPollInitialDelay() {
        return pollInitialDelay;
    }

    /**
     * Sets {@link #getPollInitialDelay()}.
     *
     * @param pollInitialDelay the pause; zero or negative, or longer than {@code baton.poll-max-delay}, fails startup
     */
    public void setPollInitialDelay(Duration pollInitialDelay) {
        this.pollInitialDelay = pollInitialDelay;
    }

    /**
     * {@return the cap of a polling waiter's pause ({@code baton.poll-max-delay}); default 500 ms}
     */
    public Duration getPollMaxDelay() {
        return pollMaxDelay;
    }

    /**
     * Sets {@link #getPollMaxDelay()}.
     *
     * @param pollMaxDelay the cap; zero or negative, or shorter than {@code baton.poll-initial-delay}, fails startup
     */
    public void setPollMaxDelay(Duration pollMaxDelay) {
        this.pollMaxDelay = pollMaxDelay;
    }

    /**
     * {@return the name this client records in its holder descriptions ({@code baton.client-name});
     * default none}
     */
    public String getClientName() {
        return clientName;
    }

    /**
     * Sets {@link #getClientName()}.
     *
     * @param clientName at most 40 characters without control characters; empty for none
     */
    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    /**
     * {@return whether waiters on other clients come before an immediate re-acquire ({@code
     * baton.fair}); default {@code true}}
     */
    public boolean isFair() {
        return fair;
    }

    /**
     * Sets {@link #isFair()}.
     *
     * @param fair {@code false} to allow barging
     */
    public void setFair(boolean fair) {
        this.fair = fair;
    }

    /**
     * {@return the options of a JDBC {@code baton.uri} ({@code baton.jdbc.*})}
     */
    public JdbcUriProperties getJdbc() {
        return jdbc;
    }

    /**
     * {@return the options of a Redis {@code baton.uri} ({@code baton.redis.*})}
     */
    public RedisUriProperties getRedis() {
        return redis;
    }

    /**
     * {@return the options of a ZooKeeper {@code baton.uri} ({@code baton.zookeeper.*})}
     */
    public ZooKeeperUriProperties getZookeeper() {
        return zookeeper;
    }

    /**
     * {@return the options of an etcd {@code baton.uri} ({@code baton.etcd.*})}
     */
    public EtcdUriProperties getEtcd() {
        return etcd;
    }

    /**
     * {@return the options of an Azure Blob {@code baton.uri} ({@code baton.azure.*})}
     */
    public AzureUriProperties getAzure() {
        return azure;
    }
}
