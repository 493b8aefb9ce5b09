package dev.baton.servers;

/**
 * What the servers of this package that run as one child process (Redis, PostgreSQL, MariaDB,
 * Azurite) show of it: whether it is external, its pid, whether it runs, and closing it. The
 * process's whole life is in {@link ManagedProcess}; an external server has an {@link
 * ManagedProcess#external} one.
 */
abstract class ManagedServer implements AutoCloseable {
    final ManagedProcess process;

    ManagedServer(ManagedProcess process) {
        this.process = process;
    }

    /**
     * Whether an environment variable named a server started elsewhere, so nothing was started.
     *
     * @return {@code true} for an external server, which cannot be paused, killed or restarted
     */
    public boolean external() {
        return process.external();
    }

    /**
     * The pid of the server's process: the process to send SIGSTOP/SIGCONT to in fault tests. It
     * changes with a restart and is still returned after a kill and after {@link #close()}.
     *
     * @return the pid, or {@code -1} for an external server
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Whether the server's process runs: not killed, stopped for a restart or closed (a paused one
     * runs).
     *
     * @return {@code false} for an external server
     */
    public boolean isRunning() {
        return process.isRunning();
    }

    /**
     * Stops the process (its stop signal, then SIGKILL after a grace period) and deletes its
     * temporary directory; once, and never throws: problems are logged. Does nothing for an external
     * server. A JVM shutdown hook does the same if this is never called.
     */
    @Override
    public void close() {
        process.close();
    }
}
