package dev.baton.spring;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code baton.azure.*} properties: the URI options of Azure Blob (azblob), added to {@code
 * baton.uri} when it is such a URI. Each one set here must not be in {@code baton.uri} as well; set
 * for another backend, it fails startup. Unset ones leave the backend's default.
 */
public class AzureUriProperties {

    /** The blob service endpoint, for Azurite or sovereign clouds (default https://ACCOUNT.blob.core.windows.net). */
    private String endpoint;

    /** The storage account key (else AZURE_STORAGE_* environment variables). */
    private String accountKey;

    /** A SAS token (else AZURE_STORAGE_* environment variables). */
    private String sas;

    /** A storage connection string (else AZURE_STORAGE_CONNECTION_STRING). */
    private String connectionString;

    /** The blob name prefix of the lock blobs (default baton/). */
    private String prefix;

    /** Whether a missing container is created on first use (default true). */
    private Boolean createContainer;

    /**
     * {@return the URI option {@code endpoint} ({@code baton.azure.endpoint}), or {@code null} when not set}
     */
    public String getEndpoint() {
        return endpoint;
    }

    /**
     * Sets {@link #getEndpoint()}.
     *
     * @param endpoint the endpoint URL
     */
    public void setEndpoint(String endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * {@return the URI option {@code accountKey} ({@code baton.azure.account-key}), or {@code null} when not set}
     */
    public String getAccountKey() {
        return accountKey;
    }

    /**
     * Sets {@link #getAccountKey()}.
     *
     * @param accountKey the key
     */
    public void setAccountKey(String accountKey) {
        this.accountKey = accountKey;
    }

    /**
     * {@return the URI option {@code sas} ({@code baton.azure.sas}), or {@code null} when not set}
     */
    public String getSas() {
        return sas;
    }

    /**
     * Sets {@link #getSas()}.
     *
     * @param sas the token
     */
    public void setSas(String sas) {
        this.sas = sas;
    }

    /**
     * {@return the URI option {@code connectionString} ({@code baton.azure.connection-string}), or {@code null} when not set}
     */
    public String getConnectionString() {
        return connectionString;
    }

    /**
     * Sets {@link #getConnectionString()}.
     *
     * @param connectionString the connection string
     */
    public void setConnectionString(String connectionString) {
        this.connectionString = connectionString;
    }

    /**
     * {@return the URI option {@code prefix} ({@code baton.azure.prefix}), or {@code null} when not set}
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
     * {@return the URI option {@code createContainer} ({@code baton.azure.create-container}), or {@code null} when not set}
     */
    public Boolean getCreateContainer() {
        return createContainer;
    }

    /**
     * Sets {@link #getCreateContainer()}.
     *
     * @param createContainer {@code false} to create none
     */
    public void setCreateContainer(Boolean createContainer) {
        this.createContainer = createContainer;
    }

    /** The options set, as property name, URI option name and URI text. */
    List<BackendUriOptions.Option> options() {
        List<BackendUriOptions.Option> options = new ArrayList<>();
        BackendUriOptions.add(options, "baton.azure.endpoint", "endpoint", endpoint);
        BackendUriOptions.add(options, "baton.azure.account-key", "accountKey", accountKey);
        BackendUriOptions.add(options, "baton.azure.sas", "sas", sas);
        BackendUriOptions.add(options, "baton.azure.connection-string", "connectionString", connectionString);
        BackendUriOptions.add(options, "baton.azure.prefix", "prefix", prefix);
        BackendUriOptions.add(options, "baton.azure.create-container", "createContainer", createContainer);
        return options;
    }
}
