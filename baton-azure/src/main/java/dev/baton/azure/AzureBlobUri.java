package dev.baton.azure;

import dev.baton.LockConfigurationException;
import dev.baton.spi.UriOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Baton's Azure Blob URI: {@code azblob://<account>/<container>[?param=value&...]}, with the
 * credentials taken from the URI's query or, failing that, from the usual environment variables.
 *
 * <pre>
 * azblob://account/container
 *     [?endpoint=https://account.blob.core.windows.net]    blob service endpoint: Azurite, sovereign clouds
 *     [&amp;accountKey=BASE64KEY | &amp;sas=SAS_TOKEN | &amp;connectionString=...]   each percent-encoded
 *     [&amp;prefix=baton/]                                        blob name prefix of the lock blobs
 *     [&amp;createContainer=true]                                 create the container when it is missing
 * </pre>
 *
 * Without credentials in the URI: {@code AZURE_STORAGE_CONNECTION_STRING}, then {@code
 * AZURE_STORAGE_KEY}, then {@code AZURE_STORAGE_SAS_TOKEN} (with {@code AZURE_STORAGE_ACCOUNT}, when
 * set, required to match the URI's account).
 *
 * @param account the storage account name
 * @param container the container holding the lock blobs
 * @param endpoint the blob service endpoint, without a trailing slash: {@code endpoint=}, else the
 *     account's public endpoint (a connection string's own endpoint wins over that default)
 * @param endpointGiven whether {@code endpoint=} named it
 * @param credential how requests are signed
 * @param prefix blob name prefix of the lock blobs ({@link AzureBlobNames})
 * @param createContainer whether a missing container is created on first use
 */
record AzureBlobUri(
        String account,
        String container,
        String endpoint,
        boolean endpointGiven,
        Credential credential,
        String prefix,
        boolean createContainer) {

    static final String SCHEME = "azblob";
    static final String ENV_CONNECTION_STRING = "AZURE_STORAGE_CONNECTION_STRING";
    static final String ENV_ACCOUNT = "AZURE_STORAGE_ACCOUNT";
    static final String ENV_KEY = "AZURE_STORAGE_KEY";
    static final String ENV_SAS = "AZURE_STORAGE_SAS_TOKEN";

    /** The options as documented; compared in lower case. */
    private static final List<String> OPTIONS =
            List.of("endpoint", "accountKey", "sas", "connectionString", "prefix", "createContainer");

    private static final Set<String> PARAMS =
            OPTIONS.stream().map(o -> o.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
    private static final Pattern CONTAINER = Pattern.compile("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]");

    /** How requests are signed; {@code source} says where it came from, for messages (never the secret). */
    sealed interface Credential {
        String source();

        record SharedKey(String key, String source) implements Credential {
            @Override
            public String toString() {
                return "SharedKey[from " + source + "]";
            }
        }

        record Sas(String token, String source) implements Credential {
            @Override
            public String toString() {
                return "Sas[from " + source + "]";
            }
        }

        record ConnectionString(String value, String source) implements Credential {
            @Override
            public String toString() {
                return "ConnectionString[from " + source + "]";
            }
        }
    }

    static AzureBlobUri parse(String uri, Map<String, String> env) {
        String trimmed = uri.trim();
        if (!trimmed.toLowerCase(Locale.ROOT).startsWith(SCHEME + "://")) {
            throw invalid(uri, "it must start with azblob://, as in azblob://account/container");
        }
        String rest = trimmed.substring(SCHEME.length() + 3);
        int question = rest.indexOf('?');
        String path = question < 0 ? rest : rest.substring(0, question);
        Map<String, String> params = question < 0 ? Map.of() : query(uri, rest.substring(question + 1));
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        int slash = path.indexOf('/');
        if (slash <= 0 || slash == path.length() - 1 || path.indexOf('/', slash + 1) >= 0) {
            throw invalid(uri, "give the account and the container: azblob://account/container");
        }
        String account = path.substring(0, slash);
        String container = path.substring(slash + 1);
        if (!ACCOUNT.matcher(account).matches()) {
            throw invalid(
                    uri,
                    "the account name '" + account + "' is not a storage account name (3 to 24 lower-case"
                            + " letters and digits)");
        }
        if (!CONTAINER.matcher(container).matches()) {
            throw invalid(
                    uri,
                    "the container name '" + container + "' is not valid (3 to 63 lower-case letters,"
                            + " digits and single hyphens, starting and ending with a letter or digit)");
        }
        String endpoint = params.containsKey("endpoint")
                ? endpoint(uri, params.get("endpoint"))
                : "https://" + account + ".blob.core.windows.net";
        Credential credential = credential(uri, account, params, env);
        String prefix = AzureBlobNames.checkPrefix(uri, params.getOrDefault("prefix", AzureBlobNames.DEFAULT_PREFIX));
        boolean create = bool(uri, "createContainer", params.getOrDefault("createcontainer", "true"));
        return new AzureBlobUri(
                account, container, endpoint, params.containsKey("endpoint"), credential, prefix, create);
    }

    private static Map<String, String> query(String uri, String query) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = (eq < 0 ? pair : pair.substring(0, eq)).toLowerCase(Locale.ROOT);
            if (!PARAMS.contains(key)) {
                throw invalid(uri, UriOptions.unknown(eq < 0 ? pair : pair.substring(0, eq), OPTIONS));
            }
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                params.put(key, URLDecoder.decode(value, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw invalid(uri, "the value of '" + key + "' is not percent-encoded correctly");
            }
        }
        return params;
    }

    private static String endpoint(String uri, String value) {
        try {
            URI parsed = new URI(value);
            String scheme = parsed.getScheme();
            if (parsed.getHost() == null || !("http".equals(scheme) || "https".equals(scheme))) {
                throw invalid(
                        uri,
                        "endpoint must be an http(s) URL such as http://127.0.0.1:10000/devstoreaccount1"
                                + " (Azurite) or https://account.blob.core.chinacloudapi.cn");
            }
        } catch (URISyntaxException e) {
            throw invalid(uri, "endpoint is not a URL: " + e.getMessage());
        }
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    private static Credential credential(
            String uri, String account, Map<String, String> params, Map<String, String> env) {
        int given = (params.containsKey("accountkey") ? 1 : 0)
                + (params.containsKey("sas") ? 1 : 0)
                + (params.containsKey("connectionstring") ? 1 : 0);
        if (given > 1) {
            throw invalid(uri, "give one of accountKey, sas and connectionString, not several");
        }
        if (params.containsKey("accountkey")) {
            return new Credential.SharedKey(
                    nonEmpty(uri, "accountKey", params.get("accountkey")), "accountKey in the URI");
        }
        if (params.containsKey("sas")) {
            return new Credential.Sas(sas(nonEmpty(uri, "sas", params.get("sas"))), "sas in the URI");
        }
        if (params.containsKey("connectionstring")) {
            return new Credential.ConnectionString(
                    nonEmpty(uri, "connectionString", params.get("connectionstring")), "connectionString in the URI");
        }
        String envAccount = blankToNull(env.get(ENV_ACCOUNT));
        if (envAccount != null && !envAccount.equals(account)) {
            throw invalid(
                    uri,
                    ENV_ACCOUNT + " is '" + envAccount + "' but the URI names account '" + account
                            + "'; give the credentials in the URI, or unset " + ENV_ACCOUNT);
        }
        String connection = blankToNull(env.get(ENV_CONNECTION_STRING));
        if (connection != null) {
            return new Credential.ConnectionString(connection, ENV_CONNECTION_STRING);
        }
        String key = blankToNull(env.get(ENV_KEY));
        if (key != null) {
            return new Credential.SharedKey(key, ENV_KEY);
        }
        String sas = blankToNull(env.get(ENV_SAS));
        if (sas != null) {
            return new Credential.Sas(sas(sas), ENV_SAS);
        }
        throw invalid(
                uri,
                "no credentials: add accountKey=, sas= or connectionString= (percent-encoded) to the URI," + " or set "
                        + ENV_CONNECTION_STRING + ", " + ENV_KEY + " or " + ENV_SAS);
    }

    private static String sas(String token) {
        return token.startsWith("?") ? token.substring(1) : token;
    }

    private static String nonEmpty(String uri, String name, String value) {
        if (value.isBlank()) {
            throw invalid(uri, name + " is empty");
        }
        return value.trim();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static boolean bool(String uri, String name, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "" -> true;
            case "false" -> false;
            default -> throw invalid(uri, name + " must be true or false but was '" + value + "'");
        };
    }

    static LockConfigurationException invalid(String uri, String problem) {
        return new LockConfigurationException("Baton Azure Blob URI " + redact(uri) + " is invalid: " + problem);
    }

    /** The URI without its secrets: account keys, SAS signatures and connection strings. */
    static String redact(String uri) {
        return uri.replaceAll("(?i)((?:accountkey|sas|sig|connectionstring)=)[^&]*", "$1***");
    }

    @Override
    public String toString() {
        return "AzureBlobUri[" + account + "/" + container + " at " + endpoint + ", credentials from "
                + credential.source() + ", prefix " + prefix + "]";
    }
}
