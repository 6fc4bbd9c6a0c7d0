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

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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

    @Test
    void amqpsWithoutAKeyStoreIsAUsageError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--amqps-port", "0"})));
        assertTrue(e.getMessage().contains("--tls-keystore"), e.getMessage());
        assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--tls-client-auth", "maybe"}));
    }
}
