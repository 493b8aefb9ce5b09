package dev.baton.spi;

import dev.baton.LockConfigurationException;

/**
 * The one place lock names are checked, so every backend gets the same rule. A stable part of the SPI
 * for backend authors: the core validates names before a backend sees them, and a backend that takes
 * names from elsewhere (an operator's command) checks them here too.
 */
public final class LockNames {
    /** Longest name in UTF-8 bytes. */
    public static final int MAX_BYTES = 512;

    private LockNames() {}

    /**
     * Returns the name if it is 1 to 512 UTF-8 bytes of well-formed Unicode without control
     * characters.
     *
     * @param name the lock name to check
     * @param backend the backend's name, for the message
     * @return {@code name}, unchanged
     * @throws LockConfigurationException naming the backend, the problem and the rule
     */
    public static String validate(String name, String backend) {
        if (name == null) {
            throw invalid("null", backend, "the name is null");
        }
        if (name.isEmpty()) {
            throw invalid("\"\"", backend, "the name is empty");
        }
        // One pass, no encoder: names are checked on every lock(name) call.
        int utf8Bytes = 0;
        boolean unpairedSurrogate = false;
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            if (Character.isISOControl(cp)) {
                throw invalid(
                        shown(name),
                        backend,
                        String.format("it contains the control character U+%04X at index %d", cp, i));
            }
            unpairedSurrogate |= Character.isSurrogate((char) cp) && cp <= Character.MAX_VALUE;
            utf8Bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            i += Character.charCount(cp);
        }
        if (unpairedSurrogate) {
            throw invalid(shown(name), backend, "it is not well-formed Unicode (an unpaired surrogate)");
        }
        if (utf8Bytes > MAX_BYTES) {
            throw invalid(shown(name), backend, "it is " + utf8Bytes + " UTF-8 bytes long");
        }
        return name;
    }

    private static String shown(String name) {
        String cut = name.length() > 40 ? name.substring(0, 40) + "..." : name;
        StringBuilder out = new StringBuilder("\"");
        cut.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp)) {
                out.append(String.format("\\u%04x", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.append('"').toString();
    }

    private static LockConfigurationException invalid(String shown, String backend, String problem) {
        return new LockConfigurationException("Baton lock name " + shown + " on " + backend + " is invalid: " + problem
                + "; use 1 to " + MAX_BYTES + " UTF-8 bytes without control characters");
    }
}
