package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.LockOptions;
import dev.baton.tck.KitTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples of docs/testing.md, run as the page shows them: an application's worker that must stop
 * when its lease is lost, and an application's store whose fenced write must refuse a deposed holder.
 */
class TestingExamplesTest {

    // snippet:start worker
    /** Takes invoices from a queue while it holds the lock; it must stop at once when the lease is lost. */
    static final class InvoiceWorker {
        private final LockClient locks;
        private final BlockingQueue<String> invoices;
        private final List<String> done = new CopyOnWriteArrayList<>();

        InvoiceWorker(LockClient locks, BlockingQueue<String> invoices) {
            this.locks = locks;
            this.invoices = invoices;
        }

        /** Works until its lease is lost; returns the invoices it handled. */
        List<String> run() throws InterruptedException {
            try (Lease lease = locks.lock("invoice-worker").acquire(Duration.ofSeconds(5))) {
                AtomicBoolean lost = new AtomicBoolean();
                lease.onLost(cause -> lost.set(true));
                while (!lost.get()) {
                    String invoice = invoices.poll(50, TimeUnit.MILLISECONDS);
                    if (invoice != null) {
                        done.add(invoice);
                    }
                }
            }
            return done;
        }
    }
    // snippet:end worker

    // snippet:start store
    /** The application's store: it refuses a write whose fencing token is older than the last one. */
    static final class InvoiceStore {
        private long lastToken;
        private String total = "";

        synchronized boolean write(String newTotal, long fencingToken) {
            if (fencingToken < lastToken) {
                return false; // a newer holder wrote already: this one was deposed
            }
            lastToken = fencingToken;
            total = newTotal;
            return true;
        }

        synchronized String total() {
            return total;
        }
    }
    // snippet:end store

    // snippet:start extension
    @RegisterExtension
    static MemLocksExtension locks = MemLocksExtension.withOptions(
            LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build());
    // snippet:end extension

    // snippet:start on-lost-test
    @Test
    void theWorkerStopsWhenItsLeaseIsLost(LockClient client, MemFaults faults) throws Exception {
        SynchronousQueue<String> invoices = new SynchronousQueue<>();
        InvoiceWorker worker = new InvoiceWorker(client, invoices);
        CompletableFuture<List<String>> running = CompletableFuture.supplyAsync(() -> {
            try {
                return worker.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(invoices.offer("invoice-1", 5, TimeUnit.SECONDS))
                .as("the worker took an invoice, so it holds the lock")
                .isTrue();

        assertThat(faults.lose("invoice-worker")).isEqualTo(1); // the lock server drops its lease

        // Told at its next renewal (a third of the lease time); a worker that ignored it would never return.
        assertThat(running.get(5, TimeUnit.SECONDS)).containsExactly("invoice-1");
    }
    // snippet:end on-lost-test

    // snippet:start fencing-test
    @Test
    void theStoreRefusesTheWriteOfADeposedHolder(LockClient client, MemFaults faults) {
        InvoiceStore store = new InvoiceStore();
        Lease first = client.lock("invoice-42").acquire(Duration.ofSeconds(1));
        first.checkValid(); // the first instance checks its lease, then stalls (a GC pause, say)...

        faults.advanceClock(Duration.ofSeconds(2)); // ...past its lease: the lock server lets it go
        try (LockClient secondInstance = Baton.connect(faults.uri());
                Lease second = secondInstance.lock("invoice-42").acquire(Duration.ofSeconds(1))) {
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(store.write("120.00", second.fencingToken())).isTrue();
        }

        // The first instance wakes up and writes: only its token can tell the store it is too late.
        assertThat(store.write("99.00", first.fencingToken())).isFalse();
        assertThat(store.total()).isEqualTo("120.00");
        first.close(); // gone already: closing logs and never throws
    }
    // snippet:end fencing-test

    @Test
    void theDeposedHolderLearnsItAtItsNextRenewal(LockClient client, MemFaults faults) throws Exception {
        Lease first = client.lock("invoice-42").acquire(Duration.ofSeconds(1));
        CompletableFuture<Throwable> lost = new CompletableFuture<>();
        first.onLost(lost::complete);
        faults.advanceClock(Duration.ofSeconds(2));
        assertThat(lost.get(KitTime.bound(Duration.ofSeconds(1)).toMillis(), TimeUnit.MILLISECONDS))
                .as("told by its renewal, not by its own clock, which did not move")
                .hasMessageContaining("invoice-42")
                .hasMessageContaining("no longer has this grant");
        assertThat(first.isValid()).isFalse();
        assertThatThrownBy(first::checkValid).isInstanceOf(dev.baton.LockLostException.class);
        assertThat(faults.events())
                .extracting(MemEvent::type)
                .containsExactly(MemEvent.Type.GRANTED, MemEvent.Type.EXPIRED);
    }
}
