package dev.baton.test;

import dev.baton.LockConfigurationException;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one {@code mem://} namespace of this JVM to clients in other JVMs, on a free port of the
 * loopback interface ({@link MemLocks#serve}): they connect with {@link #uri()}, {@code
 * mem://127.0.0.1:<port>/<namespace>}, and share its locks, its fencing tokens, its clock and its
 * faults with this JVM's clients of {@code mem://<namespace>}.
 *
 * <p>Each connection gets a backend of its own on the namespace, the one an in-JVM client has, and
 * each call of the client runs on it; so what another JVM sees is what this one does, plus the
 * transport. Grants do not end with a connection: a client that disappears keeps its grants until
 * their leases run out, as with any lease server; its waiters leave the line at once.
 *
 * <p>Only the loopback interface is served, and nothing is authenticated: it is for tests on one
 * machine. Threads are daemons named {@code baton-mem-server-...}; {@link #close()} ends them and
 * every connection.
 */
public final class MemLockServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MemLockServer.class);
    private static final AtomicInteger WORKERS = new AtomicInteger();

    private final MemNamespace namespace;
    private final ServerSocket listener;
    private final ExecutorService workers;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private MemLockServer(MemNamespace namespace) throws IOException {
        this.namespace = namespace;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        // Renewals run on workers, not on the connection's reader, so that one a fault stalls holds
        // back neither the connection's other calls nor its wake-ups; every other call is answered on
        // the reader, since none blocks.
        this.workers = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "baton-mem-server-worker-" + WORKERS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        Thread acceptor = new Thread(this::accept, "baton-mem-server-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static MemLockServer start(MemNamespace namespace) {
        try {
            return new MemLockServer(namespace);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve mem namespace " + namespace.name + " on the loopback", e);
        }
    }

    /**
     * The URI other JVMs connect to.
     *
     * @return {@code mem://127.0.0.1:<port>/<namespace>}
     */
    public String uri() {
        InetSocketAddress address = address();
        return "mem://" + address.getHostString() + ":" + address.getPort() + "/" + namespace.name;
    }

    /**
     * The address the server listens on.
     *
     * @return the loopback address and the port, fixed for the server's lifetime
     */
    public InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress().getHostAddress(), listener.getLocalPort());
    }

    /**
     * The namespace served.
     *
     * @return its name
     */
    public String namespace() {
        return namespace.name;
    }

    /**
     * Stops serving: closes every connection (their clients' calls fail with {@link
     * LockUnavailableException}) and ends the server's threads. The namespace and its grants stay.
     * Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            log.debug("closing the mem server's listener: {}", e.toString());
        }
        connections.forEach(connection -> connection.link.close());
        workers.shutdownNow();
    }

    @Override
    public String toString() {
        return "MemLockServer[" + uri() + (closed ? ", closed" : "") + "]";
    }

    private void accept() {
        while (!closed) {
            try {
                Socket socket = listener.accept();
                socket.setTcpNoDelay(true);
                Connection connection = new Connection(socket);
                connections.add(connection);
                connection.link.start();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("the mem server of {} stops accepting: {}", namespace.name, e.toString());
                }
                return;
            }
        }
    }

    /** One client: its backend on the namespace, and its waiters in line, by owner id. */
    private final class Connection implements MemLink.Receiver {
        final MemLink link;
        private final Map<String, WaitQueue.Entry> waiters = new ConcurrentHashMap<>();
        private volatile MemLockBackend backend;

        Connection(Socket socket) {
            this.link = new MemLink(socket, "baton-mem-server-" + socket.getPort(), this);
        }

        @Override
        public void frame(DataInputStream in) throws IOException {
            byte type = in.readByte();
            long id = in.readLong();
            if (type == MemWire.HELLO) {
                hello(id, in); // on the reader: every later call of the client finds its backend made
            } else if (type == MemWire.RENEW) {
                try {
                    workers.execute(() -> answer(type, id, in));
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    link.close(); // the server is closing
                }
            } else {
                answer(type, id, in); // never blocks: a few map operations under the namespace's lock
            }
        }

        /** The client's protocol version, namespace, backend name and timing options. */
        private void hello(long id, DataInputStream in) throws IOException {
            int version = in.readInt();
            String wanted = in.readUTF();
            String name = in.readUTF();
            Duration operationTimeout = Duration.ofNanos(in.readLong());
            Duration pollMaxDelay = Duration.ofNanos(in.readLong());
            if (version != MemWire.VERSION || !wanted.equals(namespace.name)) {
                link.send(MemWire.failed(
                        id,
                        new LockConfigurationException("Baton " + name + ": the mem server at " + uri()
                                + (version != MemWire.VERSION
                                        ? " speaks version " + MemWire.VERSION + " of the protocol, not " + version
                                                + "; use one Baton version in both JVMs"
                                        : " serves namespace '" + namespace.name + "', not '" + wanted
                                                + "'; connect to " + uri()))));
                return;
            }
            LockOptions options = LockOptions.builder()
                    .operationTimeout(operationTimeout)
                    .pollInitialDelay(pollMaxDelay)
                    .pollMaxDelay(pollMaxDelay)
                    .build();
            backend = new MemLockBackend(namespace, name, options);
            link.send(MemWire.frame(MemWire.OK, id, out -> {}));
        }

        private void answer(byte type, long id, DataInputStream in) {
            byte[] answer;
            try {
                answer = MemWire.frame(MemWire.OK, id, out -> call(type, in, out));
            } catch (RuntimeException e) {
                answer = MemWire.failed(id, e);
            }
            link.send(answer);
        }

        private void call(byte type, DataInputStream in, java.io.DataOutput out) throws IOException {
            MemLockBackend on = backend;
            if (on == null) {
                throw new LockUnavailableException("mem server: a call before the client's HELLO");
            }
            switch (type) {
                case MemWire.TRY -> MemWire.writeOptionalGrant(out, on.tryAcquire(MemWire.readRequest(in)));
                case MemWire.RENEW -> {
                    Duration leaseTime = Duration.ofNanos(in.readLong());
                    int count = in.readInt();
                    List<Grant> grants = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        grants.add(MemWire.readGrant(in));
                    }
                    List<Optional<Grant>> renewed = on.renewAll(grants, leaseTime);
                    out.writeInt(renewed.size());
                    for (Optional<Grant> grant : renewed) {
                        MemWire.writeOptionalGrant(out, grant);
                    }
                }
                case MemWire.RELEASE -> out.writeBoolean(on.release(MemWire.readGrant(in)));
                case MemWire.ABANDON -> on.abandon(MemWire.readRequest(in));
                case MemWire.ENTER, MemWire.ATTEMPT -> MemWire.writeOptionalGrant(out, waitInLine(on, type, in));
                case MemWire.LEAVE -> {
                    WaitQueue.Entry waiter = waiters.remove(in.readUTF());
                    if (waiter != null) {
                        waiter.leave();
                    }
                }
                case MemWire.INSPECT -> MemWire.writeInfos(
                        out, on.inspect(in.readUTF()).map(List::of).orElse(List.of()));
                case MemWire.LIST -> MemWire.writeInfos(out, on.list(in.readUTF()));
                case MemWire.FORCE -> {
                    String lock = in.readUTF();
                    String owner = in.readBoolean() ? in.readUTF() : null;
                    MemWire.writeInfos(out, on.forceRelease(lock, owner));
                }
                default -> throw new LockUnavailableException("mem server: unknown call " + type);
            }
        }

        /**
         * An entry into the line, or an attempt of a waiter already in it; an attempt of a waiter this
         * connection does not know (it joined on a connection that was lost since) enters it anew.
         */
        private Optional<Grant> waitInLine(MemLockBackend on, byte type, DataInputStream in) throws IOException {
            LockRequest request = MemWire.readRequest(in);
            String owner = request.ownerId();
            WaitQueue.Entry waiter = type == MemWire.ATTEMPT ? waiters.get(owner) : null;
            if (waiter != null) {
                Optional<Grant> granted = waiter.attempt();
                if (granted.isPresent()) {
                    waiters.remove(owner, waiter);
                }
                return granted;
            }
            WaitQueue.Entry entered = on.waiting(request.kind()).queue().enter(request, () -> wake(owner));
            if (entered.grantedOnEntry().isEmpty()) {
                waiters.put(owner, entered);
            }
            return entered.grantedOnEntry();
        }

        private void wake(String owner) {
            link.send(MemWire.frame(MemWire.WAKE, 0, out -> out.writeUTF(owner)));
        }

        /** The client is gone: its waiters leave the line now; its grants run out with their leases. */
        @Override
        public void closed(Exception cause) {
            connections.remove(this);
            for (WaitQueue.Entry waiter : waiters.values()) {
                try {
                    waiter.leave();
                } catch (RuntimeException e) {
                    // cut off by a fault: the namespace drops the silent waiter itself
                    log.debug("a waiter of a closed mem connection did not leave: {}", e.toString());
                }
            }
            waiters.clear();
            MemLockBackend on = backend;
            if (on != null) {
                on.close();
            }
        }
    }
}
