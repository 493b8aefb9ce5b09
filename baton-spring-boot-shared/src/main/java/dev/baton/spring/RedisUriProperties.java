package dev.baton.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code baton.redis.*} properties: the URI options of Redis (redis, rediss, redis-sentinel, redis-cluster, rediss-cluster, redlock), added to {@code
 * baton.uri} when it is such a URI. Each one set here must not be in {@code baton.uri} as well; set
 * for another backend, it fails startup. Unset ones leave the backend's default.
 */
public class RedisUriProperties {

    /** The key prefix of every lock key (default baton:); no braces. */
    private String prefix;

    /** How many replicas must acknowledge a grant before it counts (WAIT); default 0 on a single server, 1 whenever a replica is connected on Sentinel and Cluster. */
    private Integer waitReplicas;

    /** Redlock: the fixed clock drift allowance subtracted from every grant's validity. */
    private Duration drift;

    /** Redlock: the clock drift allowance as a fraction of the lease time (default 0.01). */
    private Double driftFactor;

    /** Redlock: the bound on one master's answer. */
    private Duration nodeTimeout;

    /** Redlock: whether to reach the masters with TLS (redis:// and redis-cluster:// take rediss:// and rediss-cluster:// instead). */
    private Boolean tls;

    /** Redis Cluster: announcedHost:port>reachableHost:port pairs, comma-separated, for nodes behind NAT or in containers. */
    private String natMap;

    /** Redis Cluster: how often the client re-reads the topology (default 30s). */
    private Duration topologyRefresh;

    /**
     * {@return the URI option {@code prefix} ({@code baton.redis.prefix}), or {@code null} when not set}
     */
    public String getPrefix() {
        return prefix;
    }

    /**
     * Sets {@link #getPrefix()}.
     *
     * @param prefix the prefix
     */
    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    /**
     * {@return the URI option {@code waitReplicas} ({@code baton.redis.wait-replicas}), or {@code null} when not set}
     */
    public Integer getWaitReplicas() {
        return waitReplicas;
    }

    /**
     * Sets {@link #getWaitReplicas()}.
     *
     * @param waitReplicas 0 or more replicas
     */
    public void setWaitReplicas(Integer waitReplicas) {
        this.waitReplicas = waitReplicas;
    }

    /**
     * {@return the URI option {@code drift} ({@code baton.redis.drift}), or {@code null} when not set}
     */
    public Duration getDrift() {
        return drift;
    }

    /**
     * Sets {@link #getDrift()}.
     *
     * @param drift the allowance
     */
    public void setDrift(Duration drift) {
        this.drift = drift;
    }

    /**
     * {@return the URI option {@code driftFactor} ({@code baton.redis.drift-factor}), or {@code null} when not set}
     */
    public Double getDriftFactor() {
        return driftFactor;
    }

    /**
     * Sets {@link #getDriftFactor()}.
     *
     * @param driftFactor the fraction
     */
    public void setDriftFactor(Double driftFactor) {
        this.driftFactor = driftFactor;
    }

    /**
     * {@return the URI option {@code nodeTimeout} ({@code baton.redis.node-timeout}), or {@code null} when not set}
     */
    public Duration getNodeTimeout() {
        return nodeTimeout;
    }

    /**
     * Sets {@link #getNodeTimeout()}.
     *
     * @param nodeTimeout the bound
     */
    public void setNodeTimeout(Duration nodeTimeout) {
        this.nodeTimeout = nodeTimeout;
    }

    /**
     * {@return the URI option {@code tls} ({@code baton.redis.tls}), or {@code null} when not set}
     */
    public Boolean getTls() {
        return tls;
    }

    /**
     * Sets {@link #getTls()}.
     *
     * @param tls {@code true} for TLS
     */
    public void setTls(Boolean tls) {
        this.tls = tls;
    }

    /**
     * {@return the URI option {@code natMap} ({@code baton.redis.nat-map}), or {@code null} when not set}
     */
    public String getNatMap() {
        return natMap;
    }

    /**
     * Sets {@link #getNatMap()}.
     *
     * @param natMap the pairs
     */
    public void setNatMap(String natMap) {
        this.natMap = natMap;
    }

    /**
     * {@return the URI option {@code topologyRefresh} ({@code baton.redis.topology-refresh}), or {@code null} when not set}
     */
    public Duration getTopologyRefresh() {
        return topologyRefresh;
    }

    /**
     * Sets {@link #getTopologyRefresh()}.
     *
     * @param topologyRefresh the period
     */
    public void setTopologyRefresh(Duration topologyRefresh) {
        this.topologyRefresh = topologyRefresh;
    }

    /** The options set, as property name, URI option name and URI text. */
    List<BackendUriOptions.Option> options() {
        List<BackendUriOptions.Option> options = new ArrayList<>();
        BackendUriOptions.add(options, "baton.redis.prefix", "prefix", prefix);
        BackendUriOptions.add(options, "baton.redis.wait-replicas", "waitReplicas", waitReplicas);
        BackendUriOptions.add(options, "baton.redis.drift", "drift", drift);
        BackendUriOptions.add(options, "baton.redis.drift-factor", "driftFactor", driftFactor);
        BackendUriOptions.add(options, "baton.redis.node-timeout", "nodeTimeout", nodeTimeout);
        BackendUriOptions.add(options, "baton.redis.tls", "tls", tls);
        BackendUriOptions.add(options, "baton.redis.nat-map", "natMap", natMap);
        BackendUriOptions.add(options, "baton.redis.topology-refresh", "topologyRefresh", topologyRefresh);
        return options;
    }
}
