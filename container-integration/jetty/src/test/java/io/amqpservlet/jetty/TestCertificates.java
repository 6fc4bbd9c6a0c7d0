package io.amqpservlet.jetty;

import org.eclipse.jetty.util.ssl.SslContextFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key and trust stores for real TLS handshakes, made at test time by the JDK's {@code keytool} (no keys are
 * checked in): a self-signed server certificate for 127.0.0.1/localhost, a self-signed client certificate whose
 * subject is {@link #CLIENT_DN}, and a trust store for each side holding the other side's certificate. PKCS12,
 * every password {@link #PASSWORD}.
 */
public final class TestCertificates {
    public static final String PASSWORD = "changeit";
    /** The client certificate's subject, as {@code X500Principal.getName()} (RFC 2253) writes it. */
    public static final String CLIENT_DN = "CN=alice,OU=amqp,O=amqp-servlet test";

    public final Path serverKeyStore;
    public final Path serverTrustStore;
    public final Path clientKeyStore;
    public final Path clientTrustStore;

    private TestCertificates(Path dir) {
        serverKeyStore = dir.resolve("server.p12");
        serverTrustStore = dir.resolve("server-trust.p12");
        clientKeyStore = dir.resolve("client.p12");
        clientTrustStore = dir.resolve("client-trust.p12");
    }

    /** Makes the stores in {@code dir}. */
    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        TestCertificates c = new TestCertificates(dir);
        keytool(dir, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-keystore", c.serverKeyStore.toString());
        keytool(dir, "-genkeypair", "-alias", "client", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", CLIENT_DN, "-validity", "2", "-keystore", c.clientKeyStore.toString());
        Path serverCert = dir.resolve("server.crt");
        Path clientCert = dir.resolve("client.crt");
        keytool(dir, "-exportcert", "-alias", "server", "-keystore", c.serverKeyStore.toString(),
                "-file", serverCert.toString());
        keytool(dir, "-exportcert", "-alias", "client", "-keystore", c.clientKeyStore.toString(),
                "-file", clientCert.toString());
        keytool(dir, "-importcert", "-noprompt", "-alias", "server", "-file", serverCert.toString(),
                "-keystore", c.clientTrustStore.toString());
        keytool(dir, "-importcert", "-noprompt", "-alias", "client", "-file", clientCert.toString(),
                "-keystore", c.serverTrustStore.toString());
        return c;
    }

    /**
     * What a server that reads PEM files rather than key stores needs (RabbitMQ): the server's certificate and its
     * private key (PKCS#8), and a CA that signed a client certificate of its own with the subject {@link #CLIENT_DN},
     * in {@code clientKeyStore} (its chain with the CA's certificate). The client needs a CA: Erlang's TLS refuses a
     * peer whose certificate is self-signed, even one it trusts.
     */
    public record PemServer(Path certificate, Path key, Path clientCa, Path clientKeyStore) {
    }

    /** Writes the files of {@link PemServer} in {@code dir}, making the CA and its client certificate. */
    public PemServer forPemServer(Path dir) throws IOException, GeneralSecurityException, InterruptedException {
        PemServer pem = new PemServer(dir.resolve("server.pem"), dir.resolve("server-key.pem"),
                dir.resolve("client-ca.pem"), dir.resolve("client-signed.p12"));
        KeyStore server = load(serverKeyStore);
        Files.writeString(pem.certificate(), pem("CERTIFICATE", server.getCertificate("server").getEncoded()));
        Files.writeString(pem.key(), pem("PRIVATE KEY", server.getKey("server", PASSWORD.toCharArray()).getEncoded()));
        Path caStore = dir.resolve("client-ca.p12");
        Path request = dir.resolve("client.csr");
        Path signed = dir.resolve("client-signed.crt");
        keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=amqp-servlet test CA", "-ext", "bc:c", "-validity", "2", "-keystore", caStore.toString());
        keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(),
                "-file", pem.clientCa().toString());
        keytool(dir, "-genkeypair", "-alias", "client", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", CLIENT_DN, "-validity", "2", "-keystore", pem.clientKeyStore().toString());
        keytool(dir, "-certreq", "-alias", "client", "-keystore", pem.clientKeyStore().toString(),
                "-file", request.toString());
        keytool(dir, "-gencert", "-rfc", "-alias", "ca", "-keystore", caStore.toString(), "-validity", "2",
                "-infile", request.toString(), "-outfile", signed.toString());
        // The CA first, so that the signed certificate's import finds its issuer and keeps the chain.
        keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-file", pem.clientCa().toString(),
                "-keystore", pem.clientKeyStore().toString());
        keytool(dir, "-importcert", "-alias", "client", "-file", signed.toString(),
                "-keystore", pem.clientKeyStore().toString());
        return pem;
    }

    /**
     * A TLS client's context that trusts the server's certificate and presents the client certificate in
     * {@code clientKeyStore} ({@link #clientKeyStore}, {@link PemServer#clientKeyStore()}), or none when null.
     */
    public SslContextFactory.Client clientTls(Path clientKeyStore) {
        SslContextFactory.Client tls = new SslContextFactory.Client();
        tls.setTrustStorePath(clientTrustStore.toString());
        tls.setTrustStorePassword(PASSWORD);
        tls.setTrustStoreType("PKCS12");
        if (clientKeyStore != null) {
            tls.setKeyStorePath(clientKeyStore.toString());
            tls.setKeyStorePassword(PASSWORD);
            tls.setKeyStoreType("PKCS12");
        }
        return tls;
    }

    private static KeyStore load(Path store) throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        return keys;
    }

    /** RFC 7468's textual encoding: base64 in lines of 64 between the label's lines. */
    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD));
        Path log = Files.createTempFile(dir, "keytool", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool " + String.join(" ", args) + " failed: "
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
        } finally {
            p.destroyForcibly();
        }
    }
}
