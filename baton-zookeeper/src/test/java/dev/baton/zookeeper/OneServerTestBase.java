package dev.baton.zookeeper;

import dev.baton.servers.ZooKeeperServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * One standalone ZooKeeper server for the test class; per test, threads for the waiters and the
 * clients and handles the test opened ({@link #resources}), closed after it, newest first.
 */
abstract class OneServerTestBase {
    static ZooKeeperServer server;

    final List<AutoCloseable> resources = new ArrayList<>();
    final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeResources() throws Exception {
        threads.shutdownNow();
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }
}
