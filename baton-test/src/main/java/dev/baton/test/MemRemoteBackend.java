package dev.baton.test;

import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockOptions;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockBackend;
import dev.baton.spi.LockRequest;
import dev.baton.spi.WaitQueue;
import dev.baton.spi.Waiting;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A client's backend on a namespace another JVM serves ({@code mem://<host>:<port>/<namespace>},
 * {@link MemLockServer}): every call is one round trip of the loopback protocol ({@link MemWire}),
 * run there by the backend an in-JVM client has. It connects on first use and again after the
 * connection was lost; each call, its connecting included, is bounded by the operation timeout and
 * fails with {@link LockUnavailableException} when the server cannot be reached or does not answer
 * in time. An interrupt does not cut a call short (its outcome would be unknown); it is kept for the
 * caller. Renewals go up to {@link #renewalBatchSize()} grants a round trip. The connection's two
 * threads ({@code baton-mem-client-...}) end when it does.
 */
final class MemRemoteBackend implements LockBackend {
    private static final int RENEWAL_BATCH = 100;

    private final InetSocketAddress server;
    private final String namespace;
    private final String name;
    private final LockOptions options;
    private final Waiting waiting = Waiting.queue(new RemoteLine());
    private final ReentrantLock connecting = new ReentrantLock();
    private final AtomicLong ids = new AtomicLong();
    /** The wake-ups of this client's waiters, by owner id. */
    private final Map<String, Runnable> wakes = new ConcurrentHashMap<>();

    private volatile Connection connection;
    private volatile boolean closed;

    MemRemoteBackend(String host, int port, String namespace, LockOptions options) {
        this.server = InetSocketAddress.createUnresolved(host, port);
        this.namespace = namespace;
        this.name = "mem (" + host + ":" + port + "/" + namespace + ")";
        this.options = options;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Grant> tryAcquire(LockRequest request) {
        return call(request.name(), MemWire.TRY, out -> MemWire.writeRequest(out, request), MemWire::readOptionalGrant);
    }

    @Override
    public Waiting waiting(LockKind kind) {
        return waiting;
    }

    @Override
    public boolean supportsPermits() {
        return true;
    }

    @Override
    public Optional<Grant> renew(Grant grant, Duration leaseTime) {
        return renewAll(List.of(grant), leaseTime).get(0);
    }

    @Override
    public int renewalBatchSize() {
        return RENEWAL_BATCH;
    }

    @Override
    public List<Optional<Grant>> renewAll(List<Grant> grants, Duration leaseTime) {
        return call(
                grants.get(0).name(),
                MemWire.RENEW,
                out -> {
                    out.writeLong(leaseTime.toNanos());
                    out.writeInt(grants.size());
                    for (Grant grant : grants) {
                        MemWire.writeGrant(out, grant);
                    }
                },
                in -> {
                    int count = in.readInt();
                    List<Optional<Grant>> renewed = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        renewed.add(MemWire.readOptionalGrant(in));
                    }
                    return renewed;
                });
    }

    @Override
    public boolean release(Grant grant) {
        return call(grant.name(), MemWire.RELEASE, out -> MemWire.writeGrant(out, grant), in -> in.readBoolean());
    }

    @Override
    public void abandon(LockRequest request) {
        call(request.name(), MemWire.ABANDON, out -> MemWire.writeRequest(out, request), in -> null);
    }

    @Override
    public Optional<LockInfo> inspect(String lock) {
        return call(lock, MemWire.INSPECT, out -> out.writeUTF(lock), MemWire::readInfos).stream()
                .findFirst();
    }

    @Override
    public List<LockInfo> list(String prefix) {
        return call(null, MemWire.LIST, out -> out.writeUTF(prefix), MemWire::readInfos);
    }

    @Override
    public String listingMethod() {
        return "reads the namespace's table in the memory of the JVM that serves it";
    }

    @Override
    public List<LockInfo> forceRelease(String lock, String ownerId) {
        return call(
                lock,
                MemWire.FORCE,
                out -> {
                    out.writeUTF(lock);
                    out.writeBoolean(ownerId != null);
                    if (ownerId != null) {
                        out.writeUTF(ownerId);
                    }
                },
                MemWire::readInfos);
    }

    @Override
    public void close() {
        closed = true;
        Connection current = connection;
        if (current != null) {
            current.link.close();
        }
    }

    /** The waiters' side: each entry is known to the server by its owner id; wake-ups come back by it. */
    private final class RemoteLine implements WaitQueue {
        @Override
        public Entry enter(LockRequest request, Runnable wake) {
            // Registered first: the server may wake the waiter before its answer to the entry arrives.
            wakes.put(request.ownerId(), wake);
            try {
                Optional<Grant> granted = inLine(MemWire.ENTER, request);
                if (granted.isPresent()) {
                    wakes.remove(request.ownerId());
                }
                return new Entry() {
                    @Override
                    public Optional<Grant> grantedOnEntry() {
                        return granted;
                    }

                    @Override
                    public Optional<Grant> attempt() {
                        Optional<Grant> taken = inLine(MemWire.ATTEMPT, request);
                        if (taken.isPresent()) {
                            wakes.remove(request.ownerId());
                        }
                        return taken;
                    }

                    @Override
                    public void leave() {
                        wakes.remove(request.ownerId());
                        call(request.name(), MemWire.LEAVE, out -> out.writeUTF(request.ownerId()), in -> null);
                    }
                };
            } catch (RuntimeException e) {
                wakes.remove(request.ownerId());
                throw e;
            }
        }

        private Optional<Grant> inLine(byte type, LockRequest request) {
            return call(request.name(), type, out -> MemWire.writeRequest(out, request), MemWire::readOptionalGrant);
        }
    }

    private <T> T call(String lock, byte type, MemWire.Body arguments, MemWire.Reader<T> answer) {
        if (closed) {
            throw unavailable(lock, "the backend is closed; connect a new client", null);
        }
        long deadline = System.nanoTime() + options.operationTimeout().toNanos();
        Connection on = connection(lock, deadline);
        DataInputStream in = on.call(lock, type, arguments, deadline);
        try {
            return answer.read(in);
        } catch (IOException | RuntimeException e) {
            throw unavailable(lock, "the mem server's answer is malformed", e);
        }
    }

    private Connection connection(String lock, long deadline) {
        Connection current = connection;
        if (current != null) {
            return current;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!connecting.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        throw unavailable(lock, "no connection within " + options.operationTimeout(), null);
                    }
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            try {
                current = connection;
                if (current == null) {
                    current = connect(lock, deadline);
                    connection = current;
                }
                return current;
            } finally {
                connecting.unlock();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Connection connect(String lock, long deadline) {
        Socket socket = new Socket();
        try {
            long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            socket.connect(new InetSocketAddress(server.getHostString(), server.getPort()), (int)
                    Math.min(Integer.MAX_VALUE, millis));
            socket.setTcpNoDelay(true);
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // it never connected
            }
            throw unavailable(lock, "cannot reach the mem server: " + e, e);
        }
        Connection fresh = new Connection(socket);
        fresh.link.start();
        try {
            fresh.call(
                    lock,
                    MemWire.HELLO,
                    out -> {
                        out.writeInt(MemWire.VERSION);
                        out.writeUTF(namespace);
                        out.writeUTF(name);
                        out.writeLong(options.operationTimeout().toNanos());
                        out.writeLong(options.pollMaxDelay().toNanos());
                    },
                    deadline);
        } catch (RuntimeException e) {
            fresh.link.close();
            throw e;
        }
        return fresh;
    }

    private LockUnavailableException unavailable(String lock, String what, Throwable cause) {
        return new LockUnavailableException(
                (lock == null ? "Baton " + name : "Baton lock '" + lock + "' on " + name) + ": " + what, cause);
    }

    /** One connection: its calls awaiting their answers, by call id. */
    private final class Connection implements MemLink.Receiver {
        final MemLink link;
        private final Map<Long, CompletableFuture<DataInputStream>> pending = new ConcurrentHashMap<>();
        private volatile Exception lost;

        Connection(Socket socket) {
            this.link = new MemLink(socket, "baton-mem-client-" + socket.getLocalPort(), this);
        }

        DataInputStream call(String lock, byte type, MemWire.Body arguments, long deadline) {
            long id = ids.incrementAndGet();
            CompletableFuture<DataInputStream> answer = new CompletableFuture<>();
            pending.put(id, answer);
            if (lost != null || !link.send(MemWire.frame(type, id, arguments))) {
                pending.remove(id);
                throw unavailable(lock, "the connection to the mem server was lost", lost);
            }
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } catch (TimeoutException e) {
                        pending.remove(id);
                        throw unavailable(lock, "no answer within " + options.operationTimeout(), null);
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof Failed failed) {
                            throw failed.failure.toException();
                        }
                        throw unavailable(lock, "the connection to the mem server was lost", e.getCause());
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void frame(DataInputStream in) throws IOException {
            byte type = in.readByte();
            long id = in.readLong();
            if (type == MemWire.WAKE) {
                Runnable wake = wakes.get(in.readUTF());
                if (wake != null) {
                    wake.run();
                }
                return;
            }
            CompletableFuture<DataInputStream> answer = pending.remove(id);
            if (answer == null) {
                return; // its caller gave up waiting
            }
            if (type == MemWire.OK) {
                answer.complete(in);
            } else {
                answer.completeExceptionally(new Failed(MemWire.readFailure(in)));
            }
        }

        @Override
        public void closed(Exception cause) {
            lost = cause != null ? cause : new IOException("closed by the server");
            if (connection == this) {
                connection = null;
            }
            pending.values().forEach(answer -> answer.completeExceptionally(lost));
            pending.clear();
        }
    }

    /** Carries a server's failure to the caller's thread, which throws it anew. */
    private static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;
        final transient MemWire.Failure failure;

        Failed(MemWire.Failure failure) {
            super(failure.message(), null, false, false);
            this.failure = failure;
        }
    }
}
