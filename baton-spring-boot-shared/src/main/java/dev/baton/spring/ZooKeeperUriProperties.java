package dev.baton.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code baton.zookeeper.*} properties: the URI options of ZooKeeper (zookeeper), added to {@code
 * baton.uri} when it is such a URI. Each one set here must not be in {@code baton.uri} as well; set
 * for another backend, it fails startup. Unset ones leave the backend's default.
 */
public class ZooKeeperUriProperties {

    /** The parent path of every lock node, inside the chroot (default /baton/locks). */
    private String root;

    /** The session timeout asked of the server (default 30s; the server clamps it to 2 to 20 ticks). */
    private Duration sessionTimeout;

    /** The bound on connecting (default: baton.operation-timeout). */
    private Duration connectionTimeout;

    /** What a disconnection does to held leases: lose (the default: reported lost at once) or wait (kept if the session reconnects within its timeout). */
    private String onSuspended;

    /** The ACL of the nodes Baton creates: creator (the default with credentials in the URI) or open. */
    private String acl;

    /**
     * {@return the URI option {@code root} ({@code baton.zookeeper.root}), or {@code null} when not set}
     */
    public String getRoot() {
        return root;
    }

    /**
     * Sets {@link #getRoot()}.
     *
     * @param root an absolute path
     */
    public void setRoot(String root) {
        this.root = root;
    }

    /**
     * {@return the URI option {@code sessionTimeout} ({@code baton.zookeeper.session-timeout}), or {@code null} when not set}
     */
    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    /**
     * Sets {@link #getSessionTimeout()}.
     *
     * @param sessionTimeout the timeout
     */
    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    /**
     * {@return the URI option {@code connectionTimeout} ({@code baton.zookeeper.connection-timeout}), or {@code null} when not set}
     */
    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    /**
     * Sets {@link #getConnectionTimeout()}.
     *
     * @param connectionTimeout the bound
     */
    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    /**
     * {@return the URI option {@code onSuspended} ({@code baton.zookeeper.on-suspended}), or {@code null} when not set}
     */
    public String getOnSuspended() {
        return onSuspended;
    }

    /**
     * Sets {@link #getOnSuspended()}.
     *
     * @param onSuspended {@code lose} or {@code wait}
     */
    public void setOnSuspended(String onSuspended) {
        this.onSuspended = onSuspended;
    }

    /**
     * {@return the URI option {@code acl} ({@code baton.zookeeper.acl}), or {@code null} when not set}
     */
    public String getAcl() {
        return acl;
    }

    /**
     * Sets {@link #getAcl()}.
     *
     * @param acl {@code creator} or {@code open}
     */
    public void setAcl(String acl) {
        this.acl = acl;
    }

    /** The options set, as property name, URI option name and URI text. */
    List<BackendUriOptions.Option> options() {
        List<BackendUriOptions.Option> options = new ArrayList<>();
        BackendUriOptions.add(options, "baton.zookeeper.root", "root", root);
        BackendUriOptions.add(options, "baton.zookeeper.session-timeout", "sessionTimeout", sessionTimeout);
        BackendUriOptions.add(options, "baton.zookeeper.connection-timeout", "connectionTimeout", connectionTimeout);
        BackendUriOptions.add(options, "baton.zookeeper.on-suspended", "onSuspended", onSuspended);
        BackendUriOptions.add(options, "baton.zookeeper.acl", "acl", acl);
        return options;
    }
}
