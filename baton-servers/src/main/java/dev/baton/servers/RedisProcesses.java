package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starting a {@code redis-server} process and telling when it listens (for {@link RedisServer}). */
final class RedisProcesses {
    private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private RedisProcesses() {}

    static Process spawn(Path exe, List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(exe.toString());
        command.addAll(args);
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /**
     * Waits until the server answers on {@code port}; {@code false} if it exited because the port
     * was taken.
     */
    static boolean awaitReady(Process process, int port, Path logFile) {
        long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
        long pause = 2;
        while (true) {
            if (!process.isAlive()) {
                String tail = Files.exists(logFile) ? Posix.tail(logFile, 0) : "";
                if (tail.contains("Address already in use")) {
                    return false;
                }
                throw new IllegalStateException(
                        "Redis exited with code " + process.exitValue() + " while starting" + tail);
            }
            // Any reply (+PONG, or -NOAUTH with requirepass) means this server listens; a process
            // that is not ours would not be alive-and-ours, which isAlive() above already checks.
            if (answers(port)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("Redis did not answer on port " + port + " within 30 s"
                        + (Files.exists(logFile) ? Posix.tail(logFile, 0) : ""));
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException("interrupted while starting Redis", e);
            }
            pause = Math.min(50, pause * 2);
        }
    }

    /** Sends PING and reads one reply line; true on any RESP reply. */
    static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(FreePort.LOOPBACK, port), 1000);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            int first = in.read();
            return first == '+' || first == '-';
        } catch (IOException e) {
            return false;
        }
    }
}
