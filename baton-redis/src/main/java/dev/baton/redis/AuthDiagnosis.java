package dev.baton.redis;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Tells a refused password from a lost connection when Lettuce cannot. Lettuce's connection handshake
 * (HELLO or AUTH) fails by closing the channel and completing the connection's future once the close
 * is done; when the channel's inactive event overtakes that (a race of Netty's events), the future
 * fails with "Connection closed prematurely" and the server's WRONGPASS is lost, so a user with a
 * wrong password would be told to check the network.
 *
 * <p>On exactly that failure, and only for a plain (not TLS) URI that carries a password, this asks
 * the server itself: one {@code AUTH} on a socket of its own, on a thread of its own, bounded by the
 * operation timeout. If the server refuses the credentials, the connection fails with the server's
 * reply (which {@link RedisFailures#explain} words as an authentication failure); otherwise the
 * original failure stands. The probe sends the credentials only to the server they were configured
 * for, as the handshake just did.
 */
final class AuthDiagnosis {
    private static final String PREMATURE_CLOSE = "Connection closed prematurely";

    private AuthDiagnosis() {}

    /** {@code connecting}, with a premature close explained by the server's answer to AUTH. */
    static <T> CompletableFuture<T> explained(CompletableFuture<T> connecting, RedisURI uri, Duration timeout) {
        return connecting.exceptionallyCompose(failure -> {
            if (!closedPrematurely(failure)
                    || uri.isSsl()
                    || uri.getHost() == null
                    || !uri.getSentinels().isEmpty()
                    || credentials(uri) == null) {
                return CompletableFuture.failedFuture(failure);
            }
            CompletableFuture<T> explained = new CompletableFuture<>();
            Thread probe = new Thread(
                    () -> {
                        String refusal = refusal(uri, timeout);
                        explained.completeExceptionally(
                                refusal == null ? failure : new RedisConnectionException(refusal, unwrap(failure)));
                    },
                    "baton-redis-auth-diagnosis");
            probe.setDaemon(true);
            probe.start();
            return explained;
        });
    }

    /**
     * The server's refusal of the URI's credentials.
     *
     * @return the server's error reply without its leading {@code -}, or null if it accepted them or
     *     could not be asked
     */
    static String refusal(RedisURI uri, Duration timeout) {
        RedisCredentials credentials = credentials(uri);
        if (credentials == null) {
            return null;
        }
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), millis);
            socket.setSoTimeout(millis);
            List<String> args = new ArrayList<>();
            args.add("AUTH");
            if (credentials.hasUsername()) {
                args.add(credentials.getUsername());
            }
            args.add(new String(credentials.getPassword()));
            OutputStream out = socket.getOutputStream();
            out.write(command(args));
            out.flush();
            String reply = firstLine(socket.getInputStream());
            return reply.startsWith("-") && isAuthRefusal(reply) ? reply.substring(1) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isAuthRefusal(String reply) {
        String upper = reply.toUpperCase(Locale.ROOT);
        return upper.startsWith("-WRONGPASS")
                || upper.contains("INVALID PASSWORD")
                || upper.contains("INVALID USERNAME");
    }

    private static RedisCredentials credentials(RedisURI uri) {
        try {
            RedisCredentials credentials = uri.getCredentialsProvider() == null
                    ? null
                    : uri.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(1));
            return credentials != null && credentials.hasPassword() ? credentials : null;
        } catch (RuntimeException e) {
            return null; // a provider that cannot answer now: no diagnosis, the original failure stands
        }
    }

    private static boolean closedPrematurely(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains(PREMATURE_CLOSE)) {
                return true;
            }
            for (Throwable suppressed : t.getSuppressed()) {
                if (closedPrematurely(suppressed)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static byte[] command(List<String> args) {
        StringBuilder out = new StringBuilder("*").append(args.size()).append("\r\n");
        for (String arg : args) {
            out.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
            out.append(arg).append("\r\n");
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String firstLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != -1 && b != '\n' && line.size() < 1024; b = in.read()) {
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
