package io.amqpservlet.jetty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
