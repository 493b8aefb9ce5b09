package dev.baton.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.LockConfigurationException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AzureBlobUriTest {
    private static final Map<String, String> NO_ENV = Map.of();

    @Test
    void anAccountKeyInTheUriGoesToTheDefaultEndpoint() {
        AzureBlobUri uri = AzureBlobUri.parse("azblob://myaccount/locks?accountKey=a2V5%2B%2F%3D%3D", NO_ENV);
        assertThat(uri.account()).isEqualTo("myaccount");
        assertThat(uri.container()).isEqualTo("locks");
        assertThat(uri.endpoint()).isEqualTo("https://myaccount.blob.core.windows.net");
        assertThat(uri.endpointGiven()).isFalse();
        assertThat(uri.credential())
                .isEqualTo(new AzureBlobUri.Credential.SharedKey("a2V5+/==", "accountKey in the URI"));
        assertThat(uri.prefix()).isEqualTo("baton/");
        assertThat(uri.createContainer()).isTrue();
        assertThat(uri.toString()).doesNotContain("a2V5");
    }

    @Test
    void endpointPrefixAndSasAreRead() {
        AzureBlobUri uri = AzureBlobUri.parse(
                "azblob://devstoreaccount1/baton-tck?endpoint=http://127.0.0.1:10000/devstoreaccount1/"
                        + "&sas=%3Fsv%3D2023-01-03%26sp%3Drwc%26sig%3Dabc&prefix=locks/app-1/&createContainer=false",
                NO_ENV);
        assertThat(uri.endpoint()).isEqualTo("http://127.0.0.1:10000/devstoreaccount1");
        assertThat(uri.endpointGiven()).isTrue();
        assertThat(uri.credential())
                .isEqualTo(new AzureBlobUri.Credential.Sas("sv=2023-01-03&sp=rwc&sig=abc", "sas in the URI"));
        assertThat(uri.prefix()).isEqualTo("locks/app-1/");
        assertThat(uri.createContainer()).isFalse();
    }

    @Test
    void credentialsComeFromTheEnvironmentInTheUsualOrder() {
        String uri = "azblob://acct123/locks";
        assertThat(AzureBlobUri.parse(uri, Map.of(AzureBlobUri.ENV_KEY, "k", AzureBlobUri.ENV_SAS, "sv=1"))
                        .credential())
                .isEqualTo(new AzureBlobUri.Credential.SharedKey("k", AzureBlobUri.ENV_KEY));
        assertThat(AzureBlobUri.parse(uri, Map.of(AzureBlobUri.ENV_SAS, "?sv=1&sig=2"))
                        .credential())
                .isEqualTo(new AzureBlobUri.Credential.Sas("sv=1&sig=2", AzureBlobUri.ENV_SAS));
        assertThat(AzureBlobUri.parse(
                                uri,
                                Map.of(
                                        AzureBlobUri.ENV_CONNECTION_STRING,
                                        "AccountName=acct123;AccountKey=k",
                                        AzureBlobUri.ENV_KEY,
                                        "other"))
                        .credential())
                .isInstanceOf(AzureBlobUri.Credential.ConnectionString.class);
        assertThat(AzureBlobUri.parse(uri + "?accountKey=fromuri", Map.of(AzureBlobUri.ENV_KEY, "fromenv"))
                        .credential())
                .isEqualTo(new AzureBlobUri.Credential.SharedKey("fromuri", "accountKey in the URI"));
        assertThatThrownBy(() -> AzureBlobUri.parse(
                        uri, Map.of(AzureBlobUri.ENV_ACCOUNT, "someoneelse", AzureBlobUri.ENV_KEY, "k")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("someoneelse")
                .hasMessageContaining("acct123");
    }

    @Test
    void badUrisSayWhatIsWrongWithoutPrintingSecrets() {
        Map<String, String> problems = Map.of(
                "redis://acct/locks?accountKey=s3cret", "azblob://",
                "azblob://acct123?accountKey=s3cret", "account and the container",
                "azblob://acct123/locks/extra?accountKey=s3cret", "account and the container",
                "azblob://Bad_Account/locks?accountKey=s3cret", "storage account name",
                "azblob://acct123/Locks?accountKey=s3cret", "container name",
                "azblob://acct123/a--b?accountKey=s3cret", "container name",
                "azblob://acct123/locks?accountKey=s3cret&sas=x", "one of accountKey",
                "azblob://acct123/locks?accountKey=s3cret&colour=blue", "unknown option 'colour'",
                "azblob://acct123/locks?accountKey=s3cret&endpoint=ftp://x", "http(s) URL",
                "azblob://acct123/locks?accountKey=s3cret&createContainer=maybe", "true or false");
        problems.forEach((uri, problem) -> assertThatThrownBy(() -> AzureBlobUri.parse(uri, NO_ENV))
                .as(uri)
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(problem)
                .hasMessageNotContaining("s3cret"));
        assertThatThrownBy(() -> AzureBlobUri.parse("azblob://acct123/locks", NO_ENV))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("no credentials")
                .hasMessageContaining(AzureBlobUri.ENV_CONNECTION_STRING);
    }

    @Test
    void prefixesCannotClimbOrEscape() {
        for (String bad : List.of("../x/", "a/../", "/abs/", "a//b/", "sp ace/", "a/./", "..", "q?x")) {
            assertThatThrownBy(() -> AzureBlobUri.parse("azblob://acct123/locks?accountKey=k&prefix=" + bad, NO_ENV))
                    .as(bad)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("prefix");
        }
        assertThat(AzureBlobUri.parse("azblob://acct123/locks?accountKey=k&prefix=", NO_ENV)
                        .prefix())
                .isEmpty();
    }

    @Test
    void blobNamesAreSafeDistinctAndReversible() {
        String longest = "a".repeat(512);
        List<String> names = List.of(
                "invoice-42",
                "../../etc/passwd",
                ".",
                "..",
                "a/b",
                "A/b",
                "ключ/с пробелом:*?'\"%_",
                "emoji-\uD83D\uDD12",
                "x%2Fy",
                "x/y",
                longest,
                longest.substring(1) + "b");
        Set<String> blobs = new HashSet<>();
        for (String name : names) {
            String blob = AzureBlobNames.blobName("baton/", name);
            assertThat(blob.substring("baton/".length())).as(name).matches("[A-Za-z0-9_-]+");
            assertThat(blob.length()).isLessThanOrEqualTo(1024);
            assertThat(AzureBlobNames.lockName("baton/", blob)).isEqualTo(name);
            blobs.add(blob);
        }
        assertThat(blobs).as("no two names share a blob").hasSize(names.size());
        assertThat(AzureBlobNames.blobName("baton/", "invoice-42")).isEqualTo("baton/aW52b2ljZS00Mg");
    }

    @Test
    void leaseIdsAreTheOwnerIdAsAGuid() {
        assertThat(AzureBlobLockBackend.leaseId("0123456789abcdef0123456789abcdef"))
                .isEqualTo("01234567-89ab-cdef-0123-456789abcdef");
    }
}
