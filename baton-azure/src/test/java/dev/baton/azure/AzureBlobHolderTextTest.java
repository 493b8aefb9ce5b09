package dev.baton.azure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Holder descriptions as metadata values ({@link AzureBlobHolderText}) and lock-name prefixes as
 * blob-name prefixes ({@link AzureBlobNames#listPrefix}, {@link AzureBlobNames#lockNameOrNull}).
 */
class AzureBlobHolderTextTest {
    /** What an HTTP header value keeps: printable ASCII, single inner spaces, nothing at the ends. */
    private static void assertHeaderSafe(String value) {
        assertThat(value).matches("[\\x21-\\x7e]([\\x21-\\x7e]| (?! ))*[\\x21-\\x7e]|[\\x21-\\x7e]?");
    }

    @Test
    void descriptionsBecomeHeaderSafeValuesAndComeBackWhole() {
        List<String> descriptions = List.of(
                "billing on host-7 pid 4242 thread main",
                "Zürich  billing on 主机 pid 1 thread pool-1-thread-3",
                " leading and trailing ",
                "100% sure \uD83D\uDE80 rocket",
                "tab\there\u0000nul",
                "",
                " ",
                "   ");
        for (String description : descriptions) {
            String encoded = AzureBlobHolderText.encode(description);
            assertHeaderSafe(encoded);
            assertThat(AzureBlobHolderText.decode(encoded)).as(encoded).isEqualTo(description);
        }
        assertThat(AzureBlobHolderText.encode("billing on host-7 pid 4242 thread main"))
                .as("plain ASCII reads as it is")
                .isEqualTo("billing on host-7 pid 4242 thread main");
        assertThat(AzureBlobHolderText.encode("a  b é%")).isEqualTo("a %20b %C3%A9%25");
    }

    @Test
    void theLongestDescriptionStaysFarBelowTheMetadataLimitAndLongerOnesAreCutAtACharacter() {
        String longest = "中".repeat(120);
        assertThat(AzureBlobHolderText.encode(longest)).hasSize(1_080);
        assertThat(AzureBlobHolderText.decode(AzureBlobHolderText.encode(longest)))
                .isEqualTo(longest);

        String tooLong = "\uD83D\uDE80".repeat(200) + " x"; // 12 encoded characters per rocket
        String cut = AzureBlobHolderText.encode(tooLong);
        assertThat(cut.length()).isLessThanOrEqualTo(AzureBlobHolderText.MAX_ENCODED);
        assertThat(AzureBlobHolderText.decode(cut)).isEqualTo("\uD83D\uDE80".repeat(100));
        assertThat(AzureBlobHolderText.encode("a ".repeat(700)))
                .as("a cut never ends in a space the header would lose")
                .hasSizeLessThanOrEqualTo(AzureBlobHolderText.MAX_ENCODED)
                .doesNotEndWith(" ");
    }

    @Test
    void valuesWrittenBySomethingElseAreReadAsTheyAreAndNothingIsEmpty() {
        assertThat(AzureBlobHolderText.decode(null)).isEmpty();
        for (String foreign : List.of("100%", "%zz", "%C3", "%FF%FE", "50%-off", "ünencoded %20")) {
            assertThat(AzureBlobHolderText.decode(foreign)).as(foreign).isEqualTo(foreign);
        }
    }

    @Test
    void everyNameUnderALockPrefixLiesUnderItsListPrefixAndDecodesBack() {
        assertThat(AzureBlobNames.listPrefix("baton/", "")).isEqualTo("baton/");
        assertThat(AzureBlobNames.listPrefix("baton/", "ab")).isEqualTo("baton/");
        assertThat(AzureBlobNames.listPrefix("baton/", "abc")).isEqualTo("baton/YWJj");
        assertThat(AzureBlobNames.listPrefix("baton/", "abcd")).isEqualTo("baton/YWJj");
        Random random = new Random(29);
        String alphabet = "ab/ü中\uD83D\uDE80-";
        for (int i = 0; i < 2_000; i++) {
            StringBuilder name = new StringBuilder();
            for (int n = 1 + random.nextInt(12); n > 0; n--) {
                int at = random.nextInt(alphabet.length());
                if (Character.isHighSurrogate(alphabet.charAt(at))) {
                    name.append(alphabet, at, at + 2);
                } else if (Character.isLowSurrogate(alphabet.charAt(at))) {
                    name.append(alphabet, at - 1, at + 1);
                } else {
                    name.append(alphabet.charAt(at));
                }
            }
            String lock = name.toString();
            String blob = AzureBlobNames.blobName("baton/", lock);
            assertThat(AzureBlobNames.lockNameOrNull("baton/", blob)).isEqualTo(lock);
            int cut = random.nextInt(lock.length() + 1);
            if (cut > 0 && Character.isHighSurrogate(lock.charAt(cut - 1))) { // never split a pair
                cut--;
            }
            String prefix = lock.substring(0, cut);
            assertThat(blob).as("%s under %s", lock, prefix).startsWith(AzureBlobNames.listPrefix("baton/", prefix));
        }
    }

    @Test
    void blobsThatNoLockNameEncodesAreNotLocks() {
        String a = AzureBlobNames.blobName("baton/", "a");
        assertThat(a).isEqualTo("baton/YQ");
        assertThat(AzureBlobNames.lockNameOrNull("baton/", a)).isEqualTo("a");
        for (String blob : List.of(
                "baton/YQ==", // padded
                "baton/YR", // the same byte with stray low bits: not the canonical encoding
                "baton/sub/YQ", // another prefix's blob
                "other/YQ",
                "baton/",
                "baton/not base64!",
                "baton/"
                        + Base64.getUrlEncoder()
                                .withoutPadding()
                                .encodeToString(new byte[] {(byte) 0xff, (byte) 0xfe}))) { // not UTF-8
            assertThat(AzureBlobNames.lockNameOrNull("baton/", blob)).as(blob).isNull();
        }
    }
}
