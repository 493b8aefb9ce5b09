package dev.baton.azure;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP gate in front of a real blob service (Azurite) that answers the next requests it is told
 * to with {@code 503 ServerBusy}, as a throttled storage account does, and passes every other
 * request through unchanged: Azure's throttling, on the loopback, without Azure.
 */
final class ThrottlingGate implements AutoCloseable {
    /** Headers the JDK's client sets itself, or that belong to one hop only. */
    private static final Set<String> HOP_HEADERS =
            Set.of("host", "content-length", "connection", "expect", "upgrade", "transfer-encoding", "keep-alive");

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4);
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String target;
    private final AtomicInteger toRefuse = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    private ThrottlingGate(String target) throws IOException {
        this.target = target;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    /** A gate to {@code target}, such as {@code http://127.0.0.1:41234}. */
    static ThrottlingGate start(String target) throws IOException {
        return new ThrottlingGate(target);
    }

    /** The gate's own {@code http://127.0.0.1:port}. */
    String address() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers the next {@code count} requests with 503 ServerBusy. */
    void refuseNext(int count) {
        toRefuse.set(count);
    }

    /** How many requests were answered with 503 so far. */
    int refused() {
        return refused.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (toRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                refused.incrementAndGet();
                exchange.getResponseHeaders().set("x-ms-error-code", "ServerBusy");
                exchange.sendResponseHeaders(503, -1);
                return;
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(
                            URI.create(target + exchange.getRequestURI().toString()))
                    .timeout(Duration.ofSeconds(10))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> header :
                    exchange.getRequestHeaders().entrySet()) {
                if (!HOP_HEADERS.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                    for (String value : header.getValue()) {
                        try {
                            request.header(header.getKey(), value);
                        } catch (IllegalArgumentException restricted) {
                            // a header the JDK's client sets itself (Date): not signed by the SDK
                        }
                    }
                }
            }
            HttpResponse<byte[]> response;
            try {
                response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exchange.sendResponseHeaders(502, -1);
                return;
            }
            response.headers().map().forEach((name, values) -> {
                if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] answer = response.body();
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(response.statusCode(), head || answer.length == 0 ? -1 : answer.length);
            if (!head && answer.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
