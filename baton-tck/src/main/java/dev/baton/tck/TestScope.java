package dev.baton.tck;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What one kit test opened: its clients, proxies and other resources, closed after the test in
 * reverse order, and the threads it ran work on, stopped after it. One per test instance, so tests
 * that run side by side never close each other's clients.
 */
final class TestScope implements AutoCloseable {
    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "tck-worker");
        thread.setDaemon(true);
        return thread;
    });

    <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    <T> Future<T> inThread(Callable<T> task) {
        return threads.submit(task);
    }

    /** Stops the threads, then closes the resources, newest first; failures are ignored. */
    @Override
    public void close() {
        threads.shutdownNow();
        List<AutoCloseable> toClose = new ArrayList<>(resources);
        Collections.reverse(toClose);
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception e) {
                // a test that failed may leave a client broken; closing is best effort
            }
        }
    }
}
