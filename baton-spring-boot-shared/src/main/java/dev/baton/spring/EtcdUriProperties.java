package dev.baton.spring;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code baton.etcd.*} properties: the URI options of etcd (etcd, etcds), added to {@code
 * baton.uri} when it is such a URI. Each one set here must not be in {@code baton.uri} as well; set
 * for another backend, it fails startup. Unset ones leave the backend's default.
 */
public class EtcdUriProperties {

    /** The prefix of every lock key, inside the URI's namespace (default /baton/locks). */
    private String root;

    /** Whether to connect with TLS (etcds:// says so too). */
    private Boolean tls;

    /** PEM file of the certificate authorities to trust (default: the JDK's trust store); needs TLS. */
    private String ca;

    /** PEM client certificate chain for mutual TLS, with key. */
    private String cert;

    /** PEM PKCS#8 private key of cert. */
    private String key;

    /**
     * {@return the URI option {@code root} ({@code baton.etcd.root}), or {@code null} when not set}
     */
    public String getRoot() {
        return root;
    }

    /**
     * Sets {@link #getRoot()}.
     *
     * @param root an absolute prefix
     */
    public void setRoot(String root) {
        this.root = root;
    }

    /**
     * {@return the URI option {@code tls} ({@code baton.etcd.tls}), or {@code null} when not set}
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
     * {@return the URI option {@code ca} ({@code baton.etcd.ca}), or {@code null} when not set}
     */
    public String getCa() {
        return ca;
    }

    /**
     * Sets {@link #getCa()}.
     *
     * @param ca the file
     */
    public void setCa(String ca) {
        this.ca = ca;
    }

    /**
     * {@return the URI option {@code cert} ({@code baton.etcd.cert}), or {@code null} when not set}
     */
    public String getCert() {
        return cert;
    }

    /**
     * Sets {@link #getCert()}.
     *
     * @param cert the file
     */
    public void setCert(String cert) {
        this.cert = cert;
    }

    /**
     * {@return the URI option {@code key} ({@code baton.etcd.key}), or {@code null} when not set}
     */
    public String getKey() {
        return key;
    }

    /**
     * Sets {@link #getKey()}.
     *
     * @param key the file
     */
    public void setKey(String key) {
        this.key = key;
    }

    /** The options set, as property name, URI option name and URI text. */
    List<BackendUriOptions.Option> options() {
        List<BackendUriOptions.Option> options = new ArrayList<>();
        BackendUriOptions.add(options, "baton.etcd.root", "root", root);
        BackendUriOptions.add(options, "baton.etcd.tls", "tls", tls);
        BackendUriOptions.add(options, "baton.etcd.ca", "ca", ca);
        BackendUriOptions.add(options, "baton.etcd.cert", "cert", cert);
        BackendUriOptions.add(options, "baton.etcd.key", "key", key);
        return options;
    }
}
