package dev.baton.azure;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A holder description ({@link dev.baton.spi.LockRequest#holder()}) as a blob metadata value: metadata
 * travels in HTTP headers ({@code x-ms-meta-*}), which carry printable ASCII only and lose leading,
 * trailing and repeated spaces to header canonicalisation. So the description is percent-encoded:
 * its UTF-8 bytes outside printable ASCII, {@code %} itself, and every space that starts or ends the
 * value or follows another space become {@code %XX}; everything else stays as it is, so that a
 * description reads plainly in the portal ({@code billing on host-7 pid 4242 thread main}).
 *
 * <p>Size: the core sends at most 120 characters, at most 1,080 characters encoded (3 UTF-8 bytes of
 * 3 characters each), well within the 8 KB Azure allows for all of a blob's metadata together; a
 * longer value is cut at a character boundary to {@value #MAX_ENCODED} characters anyway, so that no
 * caller can push the metadata write past the limit.
 */
final class AzureBlobHolderText {
    /** The longest encoded value written. */
    static final int MAX_ENCODED = 1_200;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private AzureBlobHolderText() {}

    /** The metadata value of {@code description}: printable ASCII, at most {@value #MAX_ENCODED} characters. */
    static String encode(String description) {
        StringBuilder out = new StringBuilder(description.length() + 16);
        int i = 0;
        while (i < description.length()) {
            int codePoint = description.codePointAt(i);
            int next = i + Character.charCount(codePoint);
            String piece;
            if (codePoint == ' ') {
                boolean plain = i > 0 && next < description.length() && description.charAt(i - 1) != ' ';
                piece = plain ? " " : "%20";
            } else if (codePoint > ' ' && codePoint < 0x7f && codePoint != '%') {
                piece = String.valueOf((char) codePoint);
            } else {
                piece = escaped(new String(Character.toChars(codePoint)));
            }
            if (out.length() + piece.length() > MAX_ENCODED) {
                break;
            }
            out.append(piece);
            i = next;
        }
        if (i < description.length() && out.length() > 0 && out.charAt(out.length() - 1) == ' ') {
            out.setLength(out.length() - 1); // cut after a plain space, which would be trimmed off
        }
        return out.toString();
    }

    private static String escaped(String character) {
        StringBuilder out = new StringBuilder();
        for (byte b : character.getBytes(StandardCharsets.UTF_8)) {
            out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
        }
        return out.toString();
    }

    /**
     * The description a metadata value stands for. Never fails: a value that is not valid
     * percent-encoded UTF-8 (written by something else) comes back as it is; none gives {@code ""}.
     */
    static String decode(String value) {
        if (value == null) {
            return "";
        }
        if (value.indexOf('%') < 0) {
            return value;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%') {
                int high = i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
                int low = high < 0 ? -1 : Character.digit(value.charAt(i + 2), 16);
                if (low < 0) {
                    return value;
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return value;
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            return value;
        }
    }
}
