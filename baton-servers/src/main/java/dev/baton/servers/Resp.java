package dev.baton.servers;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for managing the embedded servers (replication, Sentinel): it sends
 * commands on one short-lived connection and parses whole replies. Replies become a {@link String}
 * (simple and bulk strings), a {@link Long} (integers), a {@link List} (arrays) or {@code null}
 * (nil); an error reply becomes a {@link String} that starts with {@code -}, so callers can report
 * it as the server said it.
 */
final class Resp {
    private static final int TIMEOUT_MILLIS = 5000;

    private Resp() {}

    /** One command on its own connection. */
    static Object call(int port, String... args) {
        return calls(port, List.of(List.of(args))).get(0);
    }

    /**
     * Several commands on one connection, in order, with one reply each. One connection matters for
     * commands that act on what the same connection did before, such as {@code WAIT}.
     *
     * @throws IllegalStateException if the server cannot be reached or does not answer within 5 s
     *     per reply
     */
    static List<Object> calls(int port, List<List<String>> commands) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(FreePort.LOOPBACK, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            List<Object> replies = new ArrayList<>();
            for (List<String> command : commands) {
                out.write(encode(command));
                out.flush();
                replies.add(read(in));
            }
            return replies;
        } catch (IOException e) {
            throw new IllegalStateException(
                    "Redis on port " + port + " did not answer " + String.join(" ", commands.get(0)) + ": " + e, e);
        }
    }

    private static byte[] encode(List<String> args) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            request.writeBytes(bytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        return request.toByteArray();
    }

    private static Object read(InputStream in) throws IOException {
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply line");
        }
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case '-':
                return line;
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                byte[] body = in.readNBytes(length + 2);
                if (body.length < length + 2) {
                    throw new IOException("connection closed mid-reply");
                }
                return new String(body, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(rest);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("not a RESP reply: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new IOException("connection closed mid-reply");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }

    /** The value of {@code field} in an {@code INFO} reply ({@code field:value} lines), or null. */
    static String infoField(Object info, String field) {
        if (!(info instanceof String text)) {
            return null;
        }
        for (String line : text.split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    /** Sends PING and reads the first byte of the reply: true on any RESP reply ({@code +PONG}, {@code -NOAUTH}). */
    static boolean answers(int port) {
        byte[] reply = FreePort.exchange(port, "PING\r\n", 1, 1000);
        return reply != null && reply.length == 1 && (reply[0] == '+' || reply[0] == '-');
    }
}
