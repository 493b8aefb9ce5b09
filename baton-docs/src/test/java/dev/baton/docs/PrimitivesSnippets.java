package dev.baton.docs;

import dev.baton.DistributedLock;
import dev.baton.DistributedReadWriteLock;
import dev.baton.DistributedSemaphore;
import dev.baton.Lease;
import dev.baton.LockClient;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;

/** The snippets of docs/primitives.md; PrimitivesSnippetsTest runs them on H2. */
class PrimitivesSnippets {

    static void semaphore(LockClient client, LongConsumer runExport) {
        // snippet:start semaphore
        DistributedSemaphore exports = client.semaphore("exports", 4); // at most 4 holders, across every client
        try (Lease permit = exports.acquire(Duration.ofSeconds(30))) { // one permit: its own lease and token
            runExport.accept(permit.fencingToken());
        }
        // snippet:end semaphore
    }

    static List<Long> multiLock(LockClient client, Transfers transfers) {
        // snippet:start multi-lock
        DistributedLock transfer = client.multiLock("account-17", "account-3"); // taken as [account-17, account-3]
        try (Lease both = transfer.acquire(Duration.ofSeconds(5))) { // all or nothing
            long from = both.members().get(0).fencingToken(); // account-17's token
            long to = both.members().get(1).fencingToken(); // account-3's token
            transfers.move(17, from, 3, to);
        }
        // snippet:end multi-lock
        return transfers.tokens();
    }

    /** The transfer a multi-lock guards; records the tokens it was given. */
    static final class Transfers {
        private final List<Long> tokens = new java.util.ArrayList<>();

        void move(long fromAccount, long fromToken, long toAccount, long toToken) {
            tokens.add(fromToken);
            tokens.add(toToken);
        }

        List<Long> tokens() {
            return tokens;
        }
    }

    static void readWrite(LockClient client, Runnable read, Runnable write) {
        // snippet:start read-write
        DistributedReadWriteLock catalog = client.readWriteLock("catalog");
        try (Lease shared = catalog.readLock().acquire(Duration.ofSeconds(5))) { // many readers at once
            read.run();
        }
        try (Lease exclusive = catalog.writeLock().acquire(Duration.ofSeconds(5))) { // no reader, no other writer
            write.run();
        }
        // snippet:end read-write
    }
}
