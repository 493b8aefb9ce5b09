package dev.baton.test;

import dev.baton.Holder;
import dev.baton.LockConfigurationException;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import dev.baton.LockMode;
import dev.baton.LockUnavailableException;
import dev.baton.spi.Grant;
import dev.baton.spi.LockRequest;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The frames of the loopback protocol between a {@link MemRemoteBackend} and a {@link MemLockServer}:
 * each frame is its length (4 bytes), then a type byte, a call id (8 bytes) and the call's arguments
 * or answer, in {@link DataOutput}'s encoding. The client numbers its calls; the server answers each
 * with {@link #OK} or {@link #FAILED} and the call's id, in any order, and sends {@link #WAKE} (id 0)
 * when a waiter's turn may have come. One call is one {@link dev.baton.spi.LockBackend} method, so
 * the server runs the very backend an in-JVM client runs ({@link MemLockBackend}).
 */
final class MemWire {
    /** The protocol's version, checked at {@link #HELLO}: both ends come from one build. */
    static final int VERSION = 1;
    /** The largest frame accepted: a listing of some thousand locks. */
    static final int MAX_FRAME = 16 << 20;

    // Calls, client to server.
    static final byte HELLO = 1;
    static final byte TRY = 2;
    static final byte RENEW = 3;
    static final byte RELEASE = 4;
    static final byte ABANDON = 5;
    static final byte ENTER = 6;
    static final byte ATTEMPT = 7;
    static final byte LEAVE = 8;
    static final byte INSPECT = 9;
    static final byte LIST = 10;
    static final byte FORCE = 11;

    // Server to client.
    static final byte OK = 64;
    static final byte FAILED = 65;
    static final byte WAKE = 66;

    // What a FAILED answer carries, so that the client throws the exception the server's backend threw.
    private static final byte UNAVAILABLE = 0;
    private static final byte CONFIGURATION = 1;
    private static final byte UNSUPPORTED = 2;

    private MemWire() {}

    /** Writes a frame's body. */
    @FunctionalInterface
    interface Body {
        void write(DataOutput out) throws IOException;
    }

    /** Reads a frame's body. */
    @FunctionalInterface
    interface Reader<T> {
        T read(DataInput in) throws IOException;
    }

    /** A failure the server answered with, thrown anew on the caller's thread by {@link #toException}. */
    record Failure(byte code, String message) {
        RuntimeException toException() {
            return switch (code) {
                case CONFIGURATION -> new LockConfigurationException(message);
                case UNSUPPORTED -> new UnsupportedOperationException(message);
                default -> new LockUnavailableException(message);
            };
        }
    }

    static byte[] frame(byte type, long id, Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(type);
            out.writeLong(id);
            body.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory", e);
        }
        return bytes.toByteArray();
    }

    static byte[] failed(long id, RuntimeException failure) {
        byte code = failure instanceof LockConfigurationException
                ? CONFIGURATION
                : failure instanceof UnsupportedOperationException ? UNSUPPORTED : UNAVAILABLE;
        String message = failure instanceof dev.baton.LockException || code == UNSUPPORTED
                ? String.valueOf(failure.getMessage())
                : "the mem server failed: " + failure;
        return frame(FAILED, id, out -> {
            out.writeByte(code);
            out.writeUTF(message.length() > 8000 ? message.substring(0, 8000) : message);
        });
    }

    static Failure readFailure(DataInput in) throws IOException {
        return new Failure(in.readByte(), in.readUTF());
    }

    static void writeRequest(DataOutput out, LockRequest request) throws IOException {
        out.writeUTF(request.name());
        out.writeUTF(request.ownerId());
        out.writeUTF(request.kind().name());
        out.writeLong(request.leaseTime().toNanos());
        out.writeInt(request.permits());
        out.writeUTF(request.holder());
    }

    static LockRequest readRequest(DataInput in) throws IOException {
        String name = in.readUTF();
        String ownerId = in.readUTF();
        LockKind kind = LockKind.valueOf(in.readUTF());
        Duration leaseTime = Duration.ofNanos(in.readLong());
        return LockRequest.builder(name, ownerId, kind, leaseTime)
                .permits(in.readInt())
                .holder(in.readUTF())
                .build();
    }

    static void writeGrant(DataOutput out, Grant grant) throws IOException {
        out.writeUTF(grant.name());
        out.writeUTF(grant.ownerId());
        out.writeUTF(grant.mode().name());
        out.writeLong(grant.fencingToken());
        writeInstant(out, grant.expiresAt());
        out.writeLong(grant.validity() == null ? -1 : grant.validity().toNanos());
    }

    static Grant readGrant(DataInput in) throws IOException {
        Grant.Builder builder = Grant.builder(in.readUTF(), in.readUTF(), LockMode.valueOf(in.readUTF()))
                .fencingToken(in.readLong())
                .expiresAt(readInstant(in));
        long validity = in.readLong();
        return builder.validity(validity < 0 ? null : Duration.ofNanos(validity))
                .build();
    }

    static void writeOptionalGrant(DataOutput out, Optional<Grant> grant) throws IOException {
        out.writeBoolean(grant.isPresent());
        if (grant.isPresent()) {
            writeGrant(out, grant.get());
        }
    }

    static Optional<Grant> readOptionalGrant(DataInput in) throws IOException {
        return in.readBoolean() ? Optional.of(readGrant(in)) : Optional.empty();
    }

    static void writeInfos(DataOutput out, List<LockInfo> infos) throws IOException {
        out.writeInt(infos.size());
        for (LockInfo info : infos) {
            out.writeUTF(info.name());
            out.writeUTF(info.kind().name());
            out.writeInt(info.permits());
            out.writeInt(info.waiters().orElse(-1));
            out.writeInt(info.holders().size());
            for (Holder holder : info.holders()) {
                out.writeUTF(holder.ownerId());
                out.writeUTF(holder.description());
                out.writeLong(holder.fencingToken());
                writeInstant(out, holder.expiresAt());
            }
        }
    }

    static List<LockInfo> readInfos(DataInput in) throws IOException {
        int count = in.readInt();
        List<LockInfo> infos = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            LockKind kind = LockKind.valueOf(in.readUTF());
            int permits = in.readInt();
            int waiters = in.readInt();
            int holderCount = in.readInt();
            List<Holder> holders = new ArrayList<>(holderCount);
            for (int h = 0; h < holderCount; h++) {
                holders.add(Holder.of(in.readUTF(), in.readUTF(), in.readLong(), readInstant(in)));
            }
            infos.add(LockInfo.of(name, kind, holders)
                    .withPermits(permits)
                    .withWaiters(waiters < 0 ? OptionalInt.empty() : OptionalInt.of(waiters)));
        }
        return infos;
    }

    private static void writeInstant(DataOutput out, Instant instant) throws IOException {
        out.writeLong(instant.getEpochSecond());
        out.writeInt(instant.getNano());
    }

    private static Instant readInstant(DataInput in) throws IOException {
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
    }
}
