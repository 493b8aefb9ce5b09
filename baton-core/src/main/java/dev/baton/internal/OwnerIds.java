package dev.baton.internal;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Owner ids: 128 bits from a cryptographic generator per acquisition, never guessable or reused. */
final class OwnerIds {
    // One generator per thread: a shared SecureRandom serialises every acquisition of the JVM.
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(SecureRandom::new);
    private static final HexFormat HEX = HexFormat.of();

    private OwnerIds() {}

    /** 32 lowercase hex characters. */
    static String next() {
        byte[] bytes = new byte[16];
        RANDOM.get().nextBytes(bytes);
        return HEX.formatHex(bytes);
    }
}
