package io.amqpservlet.gateway;

import io.amqpservlet.jetty.TestCertificates;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's AMQPS listener ({@code --amqps-port} and the {@code --tls-*} options) with a real TLS handshake:
 * protonj2-client 1.1.0 with and without a client certificate asks the demo app's {@code /whoami}.
 */
@Timeout(60)
class GatewayTlsTest {
    @TempDir
    static Path dir;
    private static TestCertificates certificates;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = TestCertificates.create(dir);
    }

    private Gateway start(String clientAuth) throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                "--amqps-port", "0", "--tls-keystore", certificates.serverKeyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD,
                "--tls-truststore", certificates.serverTrustStore.toString(), "--tls-client-auth", clientAuth}));
        g.start();
        return g;
    }

    private static ConnectionOptions tls(boolean certificate, String mechanism) {
        ConnectionOptions o = new ConnectionOptions();
        o.sslEnabled(true);
        o.sslOptions().trustStoreLocation(certificates.clientTrustStore.toString())
                .trustStorePassword(TestCertificates.PASSWORD).trustStoreType("PKCS12");
        if (certificate) {
            o.sslOptions().keyStoreLocation(certificates.clientKeyStore.toString())
                    .keyStorePassword(TestCertificates.PASSWORD).keyStoreType("PKCS12");
        }
        o.saslOptions().addAllowedMechanism(mechanism);
        return o;
    }

    private static String whoAmI(int port, ConnectionOptions options) throws Exception {
        try (Client client = Client.create(); Connection c = client.connect("127.0.0.1", port, options)) {
            Receiver replies = c.openDynamicReceiver();
            String replyTo = replies.address();
            c.openSender("/whoami").send(Message.create("").subject("GET").messageId("whoami-1").replyTo(replyTo));
            Delivery d = replies.receive(10, TimeUnit.SECONDS);
            assertNotNull(d, "no response");
            Object body = d.message().body();
            return body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body);
        }
    }

    @Test
    void wantClientAuthMakesTheCertificateSubjectTheUser() throws Exception {
        Gateway g = start("want");
        try {
            assertTrue(g.amqpsPort() > 0);
            assertEquals(-1, g.amqpPort());
            assertEquals(TestCertificates.CLIENT_DN, whoAmI(g.amqpsPort(), tls(true, "EXTERNAL")));
            assertEquals("anonymous", whoAmI(g.amqpsPort(), tls(false, "ANONYMOUS")));
        } finally {
            g.stop();
        }
    }

    @Test
    void needClientAuthRefusesAClientWithoutACertificate() throws Exception {
        Gateway g = start("need");
        try {
            assertEquals(TestCertificates.CLIENT_DN, whoAmI(g.amqpsPort(), tls(true, "EXTERNAL")));
            assertThrows(Exception.class, () -> whoAmI(g.amqpsPort(), tls(false, "ANONYMOUS")));
        } finally {
            g.stop();
        }
    }

    /** The server's certificate as PEM, what {@code --cacert} usually gets (keytool exported it as DER). */
    private static Path serverCertificatePem() throws Exception {
        Path pem = dir.resolve("server.pem");
        if (!Files.exists(pem)) {
            byte[] der = Files.readAllBytes(dir.resolve("server.crt"));
            Files.writeString(pem, "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                    + "\n-----END CERTIFICATE-----\n", StandardCharsets.US_ASCII);
        }
        return pem;
    }

    @Test
    void requestCliSpeaksAmqpsAndLogsInWithItsCertificate() throws Exception {
        Gateway g = start("want");
        try {
            String url = "amqps://localhost:" + g.amqpsPort() + "/whoami";
            String cacert = serverCertificatePem().toString();
            Cli withCertificate = Cli.request("--cacert", cacert, "--cert",
                    certificates.clientKeyStore + ":" + TestCertificates.PASSWORD, url);
            assertEquals(0, withCertificate.exit, withCertificate.toString());
            assertEquals(TestCertificates.CLIENT_DN, withCertificate.text());
            Cli anonymous = Cli.request("--cacert", cacert, url);
            assertEquals(0, anonymous.exit, anonymous.toString());
            assertEquals("anonymous", anonymous.text());
            // DER works as well as PEM; a body of many TLS records and AMQP frames arrives whole.
            Cli bytes = Cli.request("--cacert", dir.resolve("server.crt").toString(),
                    "amqps://127.0.0.1:" + g.amqpsPort() + "/bytes/3000000");
            assertEquals(0, bytes.exit, bytes.err);
            assertEquals(3_000_000, bytes.out.length);
            assertEquals((byte) (2_999_999 % 251), bytes.out[2_999_999]);
        } finally {
            g.stop();
        }
    }

    @Test
    void requestCliChecksTheServerCertificateUnlessInsecure() throws Exception {
        Gateway g = start("none");
        try {
            String url = "amqps://127.0.0.1:" + g.amqpsPort() + "/whoami";
            Cli untrusted = Cli.request(url); // the JDK's trust store knows nothing of the self-signed certificate
            assertEquals(60, untrusted.exit, untrusted.toString());
            Cli insecure = Cli.request("-k", url);
            assertEquals(0, insecure.exit, insecure.toString());
            assertEquals("anonymous", insecure.text());
            // The server offers no EXTERNAL without client authentication: a client certificate cannot log in.
            Cli noExternal = Cli.request("-k", "--cert", certificates.clientKeyStore + ":" + TestCertificates.PASSWORD,
                    url);
            assertEquals(67, noExternal.exit, noExternal.toString());
            assertEquals(58, Cli.request("-k", "--cert", certificates.clientKeyStore + ":wrong", url).exit);
            assertEquals(77, Cli.request("--cacert", dir.resolve("none.pem").toString(), url).exit);
            assertEquals(2, Cli.request("-k", "amqp://127.0.0.1:1/whoami").exit);
        } finally {
            g.stop();
        }
    }

    @Test
    void requestCliWithoutACertificateIsRefusedWhenTheServerNeedsOne() throws Exception {
        Gateway g = start("need");
        try {
            String url = "amqps://127.0.0.1:" + g.amqpsPort() + "/whoami";
            Cli refused = Cli.request("--cacert", serverCertificatePem().toString(), "-m", "10", url);
            // TLS 1.3: the server's refusal may surface in the handshake (35) or on the first read after it (56).
            assertTrue(refused.exit == 35 || refused.exit == 56, refused.toString());
            Cli accepted = Cli.request("--cacert", serverCertificatePem().toString(), "--cert",
                    certificates.clientKeyStore + ":" + TestCertificates.PASSWORD, url);
            assertEquals(TestCertificates.CLIENT_DN, accepted.text(), accepted.toString());
        } finally {
            g.stop();
        }
    }

    @Test
    void requestCliPresentsAPemCertificateAndKey() throws Exception {
        // The client's key and certificate as curl takes them: two PEM files (and one file holding both).
        KeyStore p12 = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certificates.clientKeyStore)) {
            p12.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        String alias = p12.aliases().nextElement();
        java.security.Key key = p12.getKey(alias, TestCertificates.PASSWORD.toCharArray());
        Path certPem = dir.resolve("client-cert.pem");
        Path keyPem = dir.resolve("client-key.pem");
        Path bothPem = dir.resolve("client-both.pem");
        String cert = pem("CERTIFICATE", p12.getCertificate(alias).getEncoded());
        String privateKey = pem("PRIVATE KEY", key.getEncoded()); // PKCS #8, what openssl writes today
        Files.writeString(certPem, cert, StandardCharsets.US_ASCII);
        Files.writeString(keyPem, privateKey, StandardCharsets.US_ASCII);
        Files.writeString(bothPem, privateKey + cert, StandardCharsets.US_ASCII);
        Gateway g = start("need");
        try {
            String url = "amqps://localhost:" + g.amqpsPort() + "/whoami";
            String cacert = serverCertificatePem().toString();
            Cli pair = Cli.request("--cacert", cacert, "--cert", certPem.toString(), "--key", keyPem.toString(), url);
            assertEquals(0, pair.exit, pair.toString());
            assertEquals(TestCertificates.CLIENT_DN, pair.text());
            Cli both = Cli.request("--cacert", cacert, "-E", bothPem.toString(), url);
            assertEquals(TestCertificates.CLIENT_DN, both.text(), both.toString());
            Cli noKey = Cli.request("--cacert", cacert, "--cert", certPem.toString(), url);
            assertEquals(58, noKey.exit, noKey.toString());
            assertTrue(noKey.err.contains("no private key"), noKey.err);
            assertEquals(58, Cli.request("--cacert", cacert, "--key", keyPem.toString(), url).exit);
        } finally {
            g.stop();
        }
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    @Test
    void httpsPortServesTheSameServletsOverTls() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                "--https-port", "0", "--tls-keystore", certificates.serverKeyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD}));
        g.start();
        try {
            assertTrue(g.httpsPort() > 0);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(certificates.clientTrustStore)) {
                trust.load(in, TestCertificates.PASSWORD.toCharArray());
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("https://localhost:" + g.httpsPort() + "/echo?x=1"))
                    .POST(HttpRequest.BodyPublishers.ofString("over tls")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("over tls", r.body());
            assertEquals("/echo?x=1", r.headers().firstValue("x-echo-path").orElse(null));
            // A plain-text HTTP client on the TLS port gets no answer it could take for HTTP.
            assertThrows(Exception.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://localhost:" + g.httpsPort() + "/echo")).timeout(java.time.Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString()));
        } finally {
            g.stop();
        }
    }

    @Test
    void amqpsWithoutAKeyStoreIsAUsageError() {
        GatewayOptions.UsageException e = assertThrows(GatewayOptions.UsageException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--amqps-port", "0"})));
        assertTrue(e.getMessage().contains("--tls-keystore"), e.getMessage());
        GatewayOptions.UsageException https = assertThrows(GatewayOptions.UsageException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--https-port", "0"})));
        assertTrue(https.getMessage().contains("--https-port needs --tls-keystore"), https.getMessage());
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--tls-client-auth", "maybe"}));
    }
}
