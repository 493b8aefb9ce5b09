package dev.baton.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection of the loopback protocol ({@link MemWire}), either end: frames go out through a
 * writer thread of its own, so that no caller ever blocks on the socket (a peer that stops reading,
 * or a paused link, would otherwise hold the caller past its operation timeout); frames come in on a
 * reader thread, which hands each to the receiver in order. Closing it ends both threads.
 */
final class MemLink implements AutoCloseable {
    /** What the reader thread hands the frames to. */
    interface Receiver {
        /** One frame's bytes; runs on the reader thread, so it must not block. */
        void frame(DataInputStream frame) throws IOException;

        /** The connection ended; called once, on the reader thread. */
        void closed(Exception cause);
    }

    private static final byte[] END = new byte[0];

    private final Socket socket;
    private final Receiver receiver;
    private final LinkedBlockingQueue<byte[]> outbox = new LinkedBlockingQueue<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread reader;
    private final Thread writer;

    MemLink(Socket socket, String threadName, Receiver receiver) {
        this.socket = socket;
        this.receiver = receiver;
        this.reader = new Thread(this::read, threadName + "-in");
        this.writer = new Thread(this::write, threadName + "-out");
        reader.setDaemon(true);
        writer.setDaemon(true);
    }

    void start() {
        reader.start();
        writer.start();
    }

    /** Queues a frame; false if the link is closed. Never blocks. */
    boolean send(byte[] frame) {
        if (closed.get()) {
            return false;
        }
        outbox.add(frame);
        return true;
    }

    boolean isClosed() {
        return closed.get();
    }

    private void read() {
        Exception cause = null;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
            while (true) {
                int length = in.readInt();
                if (length < 9 || length > MemWire.MAX_FRAME) {
                    throw new IOException("a frame of " + length + " bytes: not the mem protocol");
                }
                byte[] frame = new byte[length];
                in.readFully(frame);
                receiver.frame(new DataInputStream(new ByteArrayInputStream(frame)));
            }
        } catch (IOException | RuntimeException e) {
            cause = e;
        } finally {
            close();
            receiver.closed(cause);
        }
    }

    private void write() {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()))) {
            while (true) {
                byte[] frame = outbox.take();
                if (frame == END) {
                    return;
                }
                out.writeInt(frame.length);
                out.write(frame);
                if (outbox.isEmpty()) {
                    out.flush();
                }
            }
        } catch (IOException e) {
            close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            outbox.add(END);
            try {
                socket.close();
            } catch (IOException e) {
                // closing a socket that failed: nothing left to do
            }
        }
    }
}
