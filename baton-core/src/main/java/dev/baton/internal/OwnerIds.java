package dev.baton.internal;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner ids: 32 lowercase hex characters, unique to one acquisition. The first 64 bits are drawn
 * once per JVM from a cryptographic generator (so two processes, or one process before and after a
 * restart, never share ids, short of a 2^-64 coincidence); the last 64 bits count acquisitions in
 * this JVM, so ids never repeat within it. Ids are unique, not secret: anyone who can write to the
 * backend can release a lock anyway, and a counter costs far less per acquisition than drawing 128
 * random bits.
 */
final class OwnerIds {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();
    private static final long PROCESS = new SecureRandom().nextLong();
    private static final AtomicLong COUNTER = new AtomicLong(new SecureRandom().nextLong());

    private OwnerIds() {}

    /** 32 lowercase hex characters. */
    static String next() {
        char[] out = new char[32];
        write(out, 0, PROCESS);
        write(out, 16, COUNTER.getAndIncrement());
        return new String(out);
    }

    private static void write(char[] out, int offset, long value) {
        for (int i = 15; i >= 0; i--) {
            out[offset + i] = DIGITS[(int) (value & 0xF)];
            value >>>= 4;
        }
    }
}
