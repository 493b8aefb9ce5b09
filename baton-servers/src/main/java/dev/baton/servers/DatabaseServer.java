package dev.baton.servers;

/**
 * A running database server that tests, the CLI and benchmarks can connect to over JDBC.
 *
 * <p>Guarantees: once an implementation's {@code start()} method has returned, the server accepts
 * connections at {@link #jdbcUrl()} with {@link #user()} and {@link #password()}, and the database
 * named in the URL exists. Servers started by this module listen on a free port on {@code
 * 127.0.0.1} and are private to the instance (two instances never share data). When an
 * environment variable points at an external server instead, nothing is started, nothing is
 * checked, {@link #external()} is {@code true} and {@link #close()} leaves that server alone.
 *
 * <p>Failure behaviour: {@code start()} methods throw {@link IllegalStateException} with a
 * readable cause (for example the tail of the server log) when a server cannot be started; they
 * never return a half-started server and they clean up whatever they created.
 *
 * <p>Instances are safe to share between threads.
 */
public interface DatabaseServer extends AutoCloseable {

    /**
     * {@return the JDBC URL, including the database} For example {@code
     * jdbc:postgresql://127.0.0.1:54321/baton} or {@code jdbc:h2:tcp://127.0.0.1:9092/mem:baton}.
     */
    String jdbcUrl();

    /** {@return the user to connect as} */
    String user();

    /** {@return the password of {@link #user()}; may be empty for external servers} */
    String password();

    /**
     * {@return the host the server listens on} That is {@code "127.0.0.1"} for embedded servers, the host parsed
     * from the URL (the first one, if it lists several) for external servers, or {@code ""} when
     * an external URL names no network address (such as {@code jdbc:h2:mem:x}).
     */
    String host();

    /**
     * {@return the TCP port the server listens on} For external servers it is the port parsed from the URL, the
     * driver's default port when the URL has none, or {@code -1} when the URL names no network
     * address.
     */
    int port();

    /** {@return whether an environment variable pointed at an external server, so nothing was started} */
    boolean external();

    /**
     * Stops the server and deletes its temporary data. Idempotent, never throws a checked exception,
     * and does nothing to external servers. Connections still open to the server are broken.
     * Problems while stopping are logged, not thrown.
     */
    @Override
    void close();
}
