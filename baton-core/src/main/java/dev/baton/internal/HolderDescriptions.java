package dev.baton.internal;

import dev.baton.spi.LockRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The holder description a request carries ({@link LockRequest#holder()}): who asks, for operators
 * listing locks. {@code billing on build-7 pid 4242 thread main}, or without a client name {@code
 * build-7 pid 4242 thread main}; at most {@link LockRequest#HOLDER_MAX_LENGTH} characters (the thread
 * name is cut first), control characters replaced by {@code ?}.
 */
final class HolderDescriptions {
    private HolderDescriptions() {}

    /** Host and process, looked up once: the host name may take a resolver round trip. */
    private static final class Process {
        static final String HOST_AND_PID =
                host() + " pid " + ProcessHandle.current().pid();

        private static String host() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException | SecurityException e) {
                host = System.getenv().getOrDefault("HOSTNAME", "unknown-host");
            }
            return host.length() > 48 ? host.substring(0, 48) : host;
        }
    }

    /**
     * The description of a request made by {@code thread} of a client named {@code clientName}.
     *
     * @param clientName the client's name ({@link dev.baton.LockOptions#clientName()}); empty for none
     * @param thread the thread that asks
     * @return the description, at most {@link LockRequest#HOLDER_MAX_LENGTH} characters
     */
    static String of(String clientName, Thread thread) {
        String process = clientName.isEmpty() ? Process.HOST_AND_PID : clientName + " on " + Process.HOST_AND_PID;
        String description = process + " thread " + thread.getName();
        if (description.length() > LockRequest.HOLDER_MAX_LENGTH) {
            description = description.substring(0, LockRequest.HOLDER_MAX_LENGTH);
        }
        return withoutControlCharacters(description);
    }

    /** Runs on every acquire: no regular expression, and no copy unless a character is replaced. */
    private static String withoutControlCharacters(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                char[] chars = text.toCharArray();
                for (int j = i; j < chars.length; j++) {
                    if (Character.isISOControl(chars[j])) {
                        chars[j] = '?';
                    }
                }
                return new String(chars);
            }
        }
        return text;
    }
}
