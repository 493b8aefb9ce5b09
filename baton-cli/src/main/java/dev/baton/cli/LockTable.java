package dev.baton.cli;

import dev.baton.Holder;
import dev.baton.LockInfo;
import dev.baton.LockKind;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@code baton locks} and {@code baton status} print what a backend holds: a table for people
 * (one row per holder; name, kind, use and waiters on the first row of each lock) or JSON for
 * scripts.
 */
final class LockTable {
    private static final List<String> HEADER =
            List.of("NAME", "KIND", "HELD", "WAITERS", "TOKEN", "EXPIRES", "OWNER", "HOLDER");

    private LockTable() {}

    /** {@code lock}, {@code read}, {@code write} or {@code semaphore}. */
    static String kind(LockInfo info) {
        return switch (info.kind()) {
            case MUTEX -> "lock";
            case READ -> "read";
            case WRITE -> "write";
            case PERMIT -> "semaphore";
        };
    }

    /** {@code 1}, the number of readers, or {@code 2/3} permits of a semaphore. */
    static String held(LockInfo info) {
        return info.kind() == LockKind.PERMIT
                ? info.holders().size() + "/" + info.permits()
                : String.valueOf(info.holders().size());
    }

    static String waiters(LockInfo info) {
        return info.waiters().isPresent() ? String.valueOf(info.waiters().getAsInt()) : "?";
    }

    /** {@code in 27.3s}, or {@code 1.2s ago} for a grant whose expiry passed on this machine's clock. */
    static String expires(Instant expiresAt, Instant now) {
        Duration left = Duration.between(now, expiresAt);
        String seconds = String.format(java.util.Locale.ROOT, "%.1fs", Math.abs(left.toMillis()) / 1000.0);
        return left.isNegative() ? seconds + " ago" : "in " + seconds;
    }

    static void print(List<LockInfo> infos, Instant now, PrintWriter out) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        for (LockInfo info : infos) {
            boolean first = true;
            for (Holder holder : info.holders()) {
                rows.add(List.of(
                        first ? info.name() : "",
                        first ? kind(info) : "",
                        first ? held(info) : "",
                        first ? waiters(info) : "",
                        String.valueOf(holder.fencingToken()),
                        expires(holder.expiresAt(), now),
                        holder.ownerId(),
                        holder.description().isEmpty() ? "-" : holder.description()));
                first = false;
            }
        }
        int[] widths = new int[HEADER.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(row.get(i));
                if (i < row.size() - 1) {
                    line.append(" ".repeat(widths[i] - row.get(i).length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }

    static String json(String backend, String listing, List<LockInfo> infos) {
        StringBuilder json = new StringBuilder("{\"backend\":").append(string(backend));
        if (listing != null) {
            json.append(",\"listing\":").append(string(listing));
        }
        json.append(",\"locks\":[");
        for (int i = 0; i < infos.size(); i++) {
            LockInfo info = infos.get(i);
            json.append(i == 0 ? "" : ",")
                    .append("{\"name\":")
                    .append(string(info.name()))
                    .append(",\"kind\":")
                    .append(string(kind(info)))
                    .append(",\"permits\":")
                    .append(info.permits())
                    .append(",\"waiters\":")
                    .append(
                            info.waiters().isPresent()
                                    ? String.valueOf(info.waiters().getAsInt())
                                    : "null")
                    .append(",\"holders\":[");
            for (int h = 0; h < info.holders().size(); h++) {
                Holder holder = info.holders().get(h);
                json.append(h == 0 ? "" : ",")
                        .append("{\"owner\":")
                        .append(string(holder.ownerId()))
                        .append(",\"description\":")
                        .append(string(holder.description()))
                        .append(",\"fencingToken\":")
                        .append(holder.fencingToken())
                        .append(",\"expiresAt\":")
                        .append(string(holder.expiresAt().toString()))
                        .append('}');
            }
            json.append("]}");
        }
        return json.append("]}").toString();
    }

    /** A JSON string literal. */
    static String string(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
