package dev.baton.quarkus.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Lease;
import dev.baton.locked.LockedContext;
import dev.baton.quarkus.Locked;
import dev.baton.tck.KitTime;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A bean of the test applications with locked methods that report who is inside and wait to be let out. */
@ApplicationScoped
public class Invoices {

    /** An argument with properties for the name templates. */
    public record Order(String region, long id) {}

    final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> mostInside = new ConcurrentHashMap<>();
    final AtomicInteger quickRuns = new AtomicInteger();

    @Locked(name = "invoice-#{#id}", waitTime = "10s")
    public long bill(long id, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
        String name = LockedContext.currentLease().name();
        int now = inside.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        mostInside.computeIfAbsent(name, n -> new AtomicInteger()).accumulateAndGet(now, Math::max);
        try {
            entered.countDown();
            assertThat(leave.await(KitTime.grant().toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
            return LockedContext.fencingToken();
        } finally {
            inside.get(name).decrementAndGet();
        }
    }

    public int mostInside(String name) {
        return mostInside.get(name).get();
    }

    @Locked(name = "invoice-#{#id}", waitTime = "200ms")
    public long quick(long id) {
        quickRuns.incrementAndGet();
        return LockedContext.fencingToken();
    }

    public int quickRuns() {
        return quickRuns.get();
    }

    @Locked(name = "order-#{#order.region()}-#{#p0.id}", leaseTime = "5s")
    public Lease order(Order order) {
        return LockedContext.currentLease();
    }

    @Locked(name = "nested")
    public long[] outer(Invoices self) {
        return new long[] {LockedContext.fencingToken(), self.inner()};
    }

    @Locked(name = "nested")
    public long inner() {
        return LockedContext.fencingToken();
    }

    final AtomicInteger jobRuns = new AtomicInteger();

    @Locked(name = "job-#{#id}", skipIfLocked = true)
    public void job(long id) {
        jobRuns.incrementAndGet();
    }

    public int jobRuns() {
        return jobRuns.get();
    }

    @Locked(name = "report-#{#id}", skipIfLocked = true)
    public Optional<Long> report(long id) {
        return Optional.of(LockedContext.fencingToken());
    }

    @Locked(name = "daily", skipIfLocked = true, lockAtLeastFor = "1h")
    public Optional<Long> daily() {
        return Optional.of(LockedContext.fencingToken());
    }

    @Locked(name = "fails")
    public void fail() {
        throw new IllegalArgumentException("the method's own failure");
    }
}
