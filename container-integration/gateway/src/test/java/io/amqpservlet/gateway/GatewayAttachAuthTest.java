package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.SecuredArtemis;
import io.amqpservlet.jetty.TestCertificates;
import io.amqpservlet.jetty.UserIdCheckPlugin;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's attach options for who is who: {@code --attach-keystore} and {@code --attach-sasl-external} log in to
 * a real Artemis (TLS that needs a client certificate, EXTERNAL only, the certificate mapped to broker user
 * {@code gateway}), and {@code --attach-trust-user-id} makes each request's user its message's user-id, which the
 * broker checks ({@link UserIdCheckPlugin}); the demo's {@code /whoami} says whom the servlet sees.
 */
@Timeout(120)
class GatewayAttachAuthTest {
    private static final long WAIT_SECONDS = 20;
    @TempDir
    Path dir;

    private static String whoAmI(Connection producer, Receiver replies, String userId) throws Exception {
        Sender sender = producer.openSender("orders");
        Message<String> request = Message.create("").subject("GET").to("/whoami").replyTo(replies.address());
        if (userId != null) {
            request.userId(userId.getBytes(StandardCharsets.UTF_8));
        }
        sender.send(request);
        Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(d, "no response through the broker");
        d.accept();
        Object body = d.message().body();
        return body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(body);
    }

    @Test
    void logsInWithItsCertificateAndServesEachRequestAsItsMessagesUserId() throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        try (SecuredArtemis broker = new SecuredArtemis("orders").user("alice", "alice-pw")
                .plugin(new UserIdCheckPlugin()).tlsWithClientCertificates(certificates, "gateway").start();
             Client client = Client.create()) {
            Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                "--attach", "amqps://127.0.0.1:" + broker.tlsPort() + "/orders",
                "--attach-keystore", certificates.clientKeyStore.toString(),
                "--attach-keystore-password", TestCertificates.PASSWORD,
                "--attach-truststore", certificates.clientTrustStore.toString(), // its password: the key store's
                "--attach-sasl-external", "--attach-trust-user-id"}));
            g.start();
            try {
                AmqpBrokerAttachment attachment = g.attachments().get(0);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (!attachment.isAttached()) {
                    assertTrue(System.nanoTime() < deadline, "not attached: " + attachment.getState());
                    Thread.sleep(10);
                }
                assertTrue(attachment.isTrustUserId());
                assertEquals(Set.of("gateway"), broker.sessionUsers(), "the certificate logged in as gateway");
                try (Connection alice = client.connect("127.0.0.1", broker.port(),
                        new ConnectionOptions().user("alice").password("alice-pw"))) {
                    Receiver replies = alice.openDynamicReceiver();
                    assertEquals("alice", whoAmI(alice, replies, "alice"));
                    // Without a user-id, no user: not the gateway's own login to the broker either.
                    assertEquals("anonymous", whoAmI(alice, replies, null));
                }
            } finally {
                g.stop();
            }
        }
    }

    @Test
    void optionsThatCannotWorkAreRefusedBeforeStart() throws Exception {
        GatewayOptions.UsageException plain = assertThrows(GatewayOptions.UsageException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                    "--attach", "amqp://127.0.0.1:1/orders", "--attach-keystore", "k.p12", "--attach-sasl-external"})));
        assertTrue(plain.getMessage().contains("--attach-sasl-external needs an amqps:// URI"), plain.getMessage());
        GatewayOptions.UsageException noCertificate = assertThrows(GatewayOptions.UsageException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                    "--attach", "amqps://127.0.0.1:1/orders", "--attach-sasl-external"})));
        assertTrue(noCertificate.getMessage().contains("--attach-keystore"), noCertificate.getMessage());
        GatewayOptions.UsageException both = assertThrows(GatewayOptions.UsageException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                    "--attach", "amqp://127.0.0.1:1/orders", "--attach-trust-user-id",
                    "--attach-request-user", "app"})));
        assertTrue(both.getMessage().contains("exclude each other"), both.getMessage());
    }

    @Test
    void atMostOnceReachesTheAttachmentOnlyWhenAsked() throws Exception {
        Gateway asked = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
            "--attach", "amqp://127.0.0.1:1/orders", "--attach-at-most-once"}));
        assertTrue(asked.attachments().get(0).isAtMostOnce());
        Gateway notAsked = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
            "--attach", "amqp://127.0.0.1:1/orders"}));
        assertFalse(notAsked.attachments().get(0).isAtMostOnce());
    }

    @Test
    void theReconnectDelaysReachTheAttachmentAndMustBeInOrder() throws Exception {
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
            "--attach", "amqp://127.0.0.1:1/orders", "--attach-min-reconnect-delay", "250",
            "--attach-max-reconnect-delay", "5000"}));
        assertEquals(250, g.attachments().get(0).getMinReconnectDelay());
        assertEquals(5000, g.attachments().get(0).getMaxReconnectDelay());
        Gateway defaults = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
            "--attach", "amqp://127.0.0.1:1/orders"}));
        assertEquals(AmqpBrokerAttachment.DEFAULT_MIN_RECONNECT_DELAY_MILLIS,
                defaults.attachments().get(0).getMinReconnectDelay());
        assertEquals(AmqpBrokerAttachment.DEFAULT_MAX_RECONNECT_DELAY_MILLIS,
                defaults.attachments().get(0).getMaxReconnectDelay());
        GatewayOptions.UsageException reversed = assertThrows(GatewayOptions.UsageException.class, () -> new Gateway(
                GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                    "--attach", "amqp://127.0.0.1:1/orders", "--attach-min-reconnect-delay", "9000",
                    "--attach-max-reconnect-delay", "5000"})));
        assertTrue(reversed.getMessage().contains("--attach-max-reconnect-delay"), reversed.getMessage());
    }

    @Test
    void aConfigFileSetsThemToo() throws Exception {
        Path config = dir.resolve("attach.properties");
        Files.writeString(config, "attach-trust-user-id=true\nattach-sasl-external=true\nattach-at-most-once=true\n"
                + "attach-keystore=/etc/gw.p12\nattach-keystore-password=pw\n"
                + "tls-truststore=/etc/trust.p12\ntls-truststore-password=tpw\n");
        GatewayOptions o = GatewayOptions.parse(new String[] {"--config", config.toString()});
        assertTrue(o.attachTrustUserId());
        assertTrue(o.attachSaslExternal());
        assertTrue(o.attachAtMostOnce());
        assertEquals("/etc/gw.p12", o.attachKeyStore());
        // Without --attach-truststore, the brokers are checked against --tls-truststore.
        assertEquals("/etc/trust.p12", o.attachTrustStore());
        assertEquals("tpw", o.attachTrustStorePassword());
        GatewayOptions defaults = GatewayOptions.parse(new String[0]);
        assertFalse(defaults.attachTrustUserId());
        assertFalse(defaults.attachSaslExternal());
        assertFalse(defaults.attachAtMostOnce());
        assertEquals(null, defaults.attachTrustStore());
    }
}
