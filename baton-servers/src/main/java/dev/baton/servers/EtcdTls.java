package dev.baton.servers;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for an etcd server that speaks TLS and asks its clients for a certificate: a test
 * certificate authority, a server certificate for {@code 127.0.0.1} and {@code localhost}, and a
 * client certificate, all signed by that authority, as PEM files (keys as unencrypted PKCS#8), valid
 * for two days. Made with the JDK's own {@code keytool}, so nothing needs installing.
 *
 * @param ca the authority's certificate: what a client trusts ({@code ca=}), and what the server
 *     checks client certificates against
 * @param serverCert the server's certificate
 * @param serverKey the server's private key
 * @param clientCert a client certificate ({@code cert=})
 * @param clientKey its private key ({@code key=})
 */
public record EtcdTls(Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {
    private static final String PASSWORD = "baton-test";

    /**
     * Makes the authority and both certificates in {@code dir}.
     *
     * @param dir the directory to write the PEM and key files to; created if missing
     * @return the paths of the files written
     *
     * @throws IllegalStateException if keytool fails (its output is in the message)
     */
    public static EtcdTls create(Path dir) {
        try {
            Files.createDirectories(dir);
            Path ca = dir.resolve("ca.p12");
            keytool(
                    dir,
                    "-genkeypair",
                    "-alias",
                    "ca",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=Baton test CA",
                    "-ext",
                    "bc:c",
                    "-validity",
                    "2",
                    "-keystore",
                    ca.toString());
            keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", "ca.pem");
            signed(dir, ca, "server", "CN=localhost", "san=ip:127.0.0.1,dns:localhost");
            signed(dir, ca, "client", "CN=baton-client", null);
            return new EtcdTls(
                    dir.resolve("ca.pem"),
                    dir.resolve("server.pem"),
                    dir.resolve("server-key.pem"),
                    dir.resolve("client.pem"),
                    dir.resolve("client-key.pem"));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("could not make test certificates in " + dir + ": " + e, e);
        }
    }

    /** A key pair {@code name}, its certificate signed by the authority, and both as PEM files. */
    private static void signed(Path dir, Path ca, String name, String subject, String san)
            throws IOException, GeneralSecurityException {
        Path store = dir.resolve(name + ".p12");
        keytool(
                dir,
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                subject,
                "-validity",
                "2",
                "-keystore",
                store.toString());
        keytool(dir, "-certreq", "-alias", name, "-keystore", store.toString(), "-file", name + ".csr");
        List<String> sign = new ArrayList<>(List.of(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-infile",
                name + ".csr",
                "-outfile",
                name + ".pem",
                "-validity",
                "2",
                "-ext",
                "eku=serverAuth,clientAuth"));
        if (san != null) {
            sign.addAll(List.of("-ext", san));
        }
        keytool(dir, sign.toArray(String[]::new));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) keys.getKey(name, PASSWORD.toCharArray());
        String pem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        Files.writeString(dir.resolve(name + "-key.pem"), pem);
    }

    private static void keytool(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD, "-keypass", PASSWORD, "-storetype", "PKCS12", "-noprompt"));
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("keytool " + args[0] + " did not finish in 60 s");
            }
            if (process.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: " + output.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while running keytool", e);
        }
    }
}
