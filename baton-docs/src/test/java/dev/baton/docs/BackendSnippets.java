package dev.baton.docs;

import dev.baton.Baton;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.jdbc.JdbcLocks;
import dev.baton.redis.Redlock;
import java.time.Duration;
import javax.sql.DataSource;

/** The snippets of docs/backends/*.md. */
class BackendSnippets {

    static LockClient fromDataSource(DataSource dataSource) {
        // snippet:start jdbc-datasource
        LockClient client = JdbcLocks.builder(dataSource) // your pool: Baton never closes it
                .strategy("advisory") // default "table"
                .table("baton_locks")
                .options(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // snippet:end jdbc-datasource
        return client;
    }

    static LockClient redis() {
        // snippet:start redis-connect
        LockClient client = Baton.connect("redis://:secret@cache:6379/0");
        // snippet:end redis-connect
        return client;
    }

    static LockClient redlock() {
        // snippet:start redlock-builder
        LockClient redlock = Redlock.builder()
                .node("redis://r1:6379")
                .node("redis://r2:6379")
                .node("redis://r3:6379")
                .node("redis://r4:6379")
                .node("redis://r5:6379")
                .options(LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build())
                .build();
        // snippet:end redlock-builder
        return redlock;
    }

    static LockClient cluster() {
        // snippet:start redis-cluster
        LockClient client = Baton.connect("redis-cluster://:secret@r1:7000,r2:7000,r3:7000/?prefix=app:");
        // snippet:end redis-cluster
        return client;
    }
}
