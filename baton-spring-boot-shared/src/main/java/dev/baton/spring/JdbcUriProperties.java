package dev.baton.spring;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code baton.jdbc.*} properties: the URI options of JDBC (jdbc:h2, jdbc:postgresql, jdbc:mariadb), added to {@code
 * baton.uri} when it is such a URI. Each one set here must not be in {@code baton.uri} as well; set
 * for another backend, it fails startup. Unset ones leave the backend's default.
 */
public class JdbcUriProperties {

    /** The locking strategy: table (the default; optimistic is its alias), pessimistic or advisory (PostgreSQL, MariaDB). */
    private String strategy;

    /** The lock table, optionally schema-qualified; the other tables are named after it. Default baton_locks. */
    private String table;

    /** Whether missing lock tables are created on first use (default true); false makes a missing table fail with the DDL to run. */
    private Boolean createSchema;

    /** Whether the PostgreSQL advisory strategy records each holder, so that baton locks can name and break its locks (default false). */
    private Boolean advisoryHolders;

    /**
     * {@return the URI option {@code strategy} ({@code baton.jdbc.strategy}), or {@code null} when not set}
     */
    public String getStrategy() {
        return strategy;
    }

    /**
     * Sets {@link #getStrategy()}.
     *
     * @param strategy {@code table} ({@code optimistic} is its alias), {@code pessimistic} or {@code advisory}
     */
    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }

    /**
     * {@return the URI option {@code table} ({@code baton.jdbc.table}), or {@code null} when not set}
     */
    public String getTable() {
        return table;
    }

    /**
     * Sets {@link #getTable()}.
     *
     * @param table a plain, optionally schema-qualified table name
     */
    public void setTable(String table) {
        this.table = table;
    }

    /**
     * {@return the URI option {@code createSchema} ({@code baton.jdbc.create-schema}), or {@code null} when not set}
     */
    public Boolean getCreateSchema() {
        return createSchema;
    }

    /**
     * Sets {@link #getCreateSchema()}.
     *
     * @param createSchema {@code false} to create no tables
     */
    public void setCreateSchema(Boolean createSchema) {
        this.createSchema = createSchema;
    }

    /**
     * {@return the URI option {@code advisoryHolders} ({@code baton.jdbc.advisory-holders}), or {@code null} when not set}
     */
    public Boolean getAdvisoryHolders() {
        return advisoryHolders;
    }

    /**
     * Sets {@link #getAdvisoryHolders()}.
     *
     * @param advisoryHolders {@code true} to record advisory holders
     */
    public void setAdvisoryHolders(Boolean advisoryHolders) {
        this.advisoryHolders = advisoryHolders;
    }

    /** The options set, as property name, URI option name and URI text. */
    List<BackendUriOptions.Option> options() {
        List<BackendUriOptions.Option> options = new ArrayList<>();
        BackendUriOptions.add(options, "baton.jdbc.strategy", "strategy", strategy);
        BackendUriOptions.add(options, "baton.jdbc.table", "table", table);
        BackendUriOptions.add(options, "baton.jdbc.create-schema", "createSchema", createSchema);
        BackendUriOptions.add(options, "baton.jdbc.advisory-holders", "advisoryHolders", advisoryHolders);
        return options;
    }
}
