package dev.baton.spring;

import static dev.baton.spring.BatonAutoConfigurationTest.rootMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Lease;
import dev.baton.LockClient;
import dev.baton.locked.LockedContext;
import dev.baton.locked.LockedTimeoutException;
import dev.baton.tck.Await;
import dev.baton.tck.KitTime;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/** {@link Locked} methods of a real Spring Boot application on H2 (one application for the class). */
class LockedTest {

    private static ConfigurableApplicationContext context;
    private static Invoices invoices;
    private static LockClient client;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Invoices.class)
    static class App {}

    record Order(String region, long id) {}

    /** A bean with locked methods that report who is inside and wait to be let out. */
    static class Invoices {
        final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> mostInside = new ConcurrentHashMap<>();

        @Locked(name = "invoice-#{#id}", waitTime = "10s")
        public long bill(long id, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
            String name = LockedContext.currentLease().name();
            int now = inside.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
            mostInside.computeIfAbsent(name, n -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            try {
                entered.countDown();
                assertThat(leave.await(10, TimeUnit.SECONDS)).isTrue();
                return LockedContext.fencingToken();
            } finally {
                inside.get(name).decrementAndGet();
            }
        }

        /** Through a method: a test reading the proxy's fields would see the proxy's own, empty ones. */
        public int mostInside(String name) {
            return mostInside.get(name).get();
        }

        @Locked(name = "invoice-#{#id}", waitTime = "200ms")
        public void quick(long id) {}

        @Locked(name = "order-#{#order.region()}-#{#p0.id()}", leaseTime = "5s")
        public Lease order(Order order) {
            return LockedContext.currentLease();
        }

        @Locked(name = "fails")
        public void fail() {
            throw new IllegalArgumentException("the method's own failure");
        }
    }

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .web(WebApplicationType.NONE)
                .properties("baton.uri=jdbc:h2:mem:starter-locked", "baton.lease-time=5s")
                .run();
        invoices = context.getBean(Invoices.class);
        client = context.getBean(LockClient.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void callsWithTheSameResolvedNameRunOneAtATime() throws Exception {
        CountDownLatch firstIn = new CountDownLatch(1);
        CountDownLatch firstOut = new CountDownLatch(1);
        CountDownLatch secondIn = new CountDownLatch(1);
        Future<Long> first = threads.submit(() -> invoices.bill(1, firstIn, firstOut));
        Await.condition("the first call inside", KitTime.grant(), () -> firstIn.getCount() == 0);
        assertThat(client.lock("invoice-1").tryAcquire())
                .as("the resolved name is held")
                .isEmpty();

        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Long> second = threads.submit(() -> {
            waiter.set(Thread.currentThread());
            return invoices.bill(1, secondIn, new CountDownLatch(0));
        });
        Awaitility.await("the second call to wait for the lock")
                .atMost(KitTime.grant())
                .until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);
        assertThat(secondIn.getCount())
                .as("second call not inside while the first is")
                .isEqualTo(1);

        firstOut.countDown();
        long firstToken = Await.result(first, KitTime.grant());
        long secondToken = Await.result(second, KitTime.grant());
        assertThat(invoices.mostInside("invoice-1")).isEqualTo(1);
        assertThat(secondToken).as("fencing token of the next holder").isGreaterThan(firstToken);
    }

    @Test
    void callsWithDifferentNamesRunTogether() throws Exception {
        CountDownLatch bothIn = new CountDownLatch(2);
        CountDownLatch leave = new CountDownLatch(1);
        Future<Long> two = threads.submit(() -> invoices.bill(2, bothIn, leave));
        Future<Long> three = threads.submit(() -> invoices.bill(3, bothIn, leave));
        Await.condition("both inside at once", KitTime.grant(), () -> bothIn.getCount() == 0);
        leave.countDown();
        Await.result(two, KitTime.grant());
        Await.result(three, KitTime.grant());
    }

    @Test
    void aLockNotAcquiredWithinTheWaitTimeFailsTheCallClearly() throws Exception {
        CountDownLatch in = new CountDownLatch(1);
        CountDownLatch out = new CountDownLatch(1);
        Future<Long> holder = threads.submit(() -> invoices.bill(4, in, out));
        Await.condition("the holding call inside", KitTime.grant(), () -> in.getCount() == 0);
        try {
            assertThatThrownBy(() -> invoices.quick(4))
                    .isInstanceOf(LockedTimeoutException.class)
                    .hasMessageContaining("@Locked Invoices.quick(long) did not run")
                    .hasMessageContaining("'invoice-4'")
                    .hasMessageContaining("not acquired within PT0.2S")
                    .satisfies(e ->
                            assertThat(((LockedTimeoutException) e).lockName()).isEqualTo("invoice-4"));
        } finally {
            out.countDown();
        }
        Await.result(holder, KitTime.grant());
        invoices.quick(4);
    }

    @Test
    void theLeaseIsVisibleInsideWithTheSpelNameAndAHigherTokenEachCall() {
        Lease first = invoices.order(new Order("eu", 9));
        Lease second = invoices.order(new Order("eu", 9));
        assertThat(first.name()).isEqualTo("order-eu-9");
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(second.isValid()).as("released after the call").isFalse();
        assertThatThrownBy(LockedContext::currentLease)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no @Locked method is running");
    }

    @Test
    void theLockIsReleasedWhenTheMethodThrows() throws Exception {
        assertThatThrownBy(invoices::fail).isInstanceOf(IllegalArgumentException.class);
        // From another thread: this one would re-enter a grant it still held.
        Optional<Lease> after =
                Await.result(threads.submit(() -> client.lock("fails").tryAcquire()), KitTime.grant());
        assertThat(after).as("released after the failure").isPresent();
        after.get().close();
    }

    static class BadWait {
        @Locked(name = "x", waitTime = "soon")
        public void run() {}
    }

    static class UnknownParameter {
        @Locked(name = "x-#{#idd}")
        public void run(long id) {}
    }

    @Test
    void aBadAnnotationFailsStartupNamingTheMethod() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BatonAutoConfiguration.class))
                .withPropertyValues("baton.uri=jdbc:h2:mem:starter-bad-annotation");
        runner.withBean(BadWait.class).run(context -> assertThat(rootMessage(context.getStartupFailure()))
                .contains("@Locked BadWait.run()", "waitTime = \"soon\" is not a duration"));
        runner.withBean(UnknownParameter.class).run(context -> assertThat(rootMessage(context.getStartupFailure()))
                .contains("@Locked UnknownParameter.run(long)", "refers to #idd", "[id]"));
    }
}
