package io.amqpservlet.jetty;

import io.amqpservlet.testbrokers.RabbitMqNode;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SASL EXTERNAL to the broker ({@link AmqpBrokerAttachment#setSaslExternal}) end to end against a real RabbitMQ 3.10
 * with its AMQP 1.0 plugin and {@code rabbitmq_auth_mechanism_ssl}: its TLS listener needs a client certificate signed
 * by a CA it trusts, and EXTERNAL logs the gateway in as the user the certificate's common name names
 * ({@code alice}). Clients send requests as guest on the plain port.
 */
@Timeout(180)
class AttachSaslExternalRabbitMqTest {
    private static final long WAIT_SECONDS = 30;
    @TempDir
    static Path dir;
    private static TestCertificates certificates;
    private static TestCertificates.PemServer pem;
    private static RabbitMqNode broker;
    private static Client client;

    private AttachedGateway gateway;

    @BeforeAll
    static void startBroker() throws Exception {
        RabbitMqNode.requireInstalled();
        certificates = TestCertificates.create(dir);
        pem = certificates.forPemServer(dir);
        broker = RabbitMqNode.startWithClientCertificates(null,
                new RabbitMqNode.ClientCertificates(pem.certificate(), pem.key(), pem.clientCa()));
        client = Client.create();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (client != null) {
            client.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @AfterEach
    void stopGateway() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
    }

    private AttachedGateway gateway(String queue, boolean withCertificate) throws Exception {
        gateway = new AttachedGateway("amqps://127.0.0.1:" + broker.tlsPort() + "/" + queue, 2);
        // The broker's certificate trusted; the client certificate presented when withCertificate.
        gateway.attachment.setSslContextFactory(certificates.clientTls(withCertificate ? pem.clientKeyStore() : null));
        gateway.attachment.setSaslExternal(true);
        return gateway.start();
    }

    @Test
    void attachesWithItsClientCertificateAndServesTheQueue() throws Exception {
        String queue = "/queue/external-" + UUID.randomUUID();
        gateway(queue, true).awaitAttached(WAIT_SECONDS * 1000);
        // Who the broker says the gateway is: the certificate's user (who has no password), on the TLS listener.
        // RabbitMQ 3.10 lists an AMQP 1.0 connection's sessions as channels, not the connection itself.
        List<String> channels = broker.rabbitmqctl("list_channels", "user", "name");
        assertTrue(channels.stream().anyMatch(c -> c.startsWith(RabbitMqNode.CERTIFICATE_USER + "\t")
                && c.contains("-> 127.0.0.1:" + broker.tlsPort() + " ")), "the broker's channels (user, name): "
                + channels);
        try (Connection guest = client.connect("127.0.0.1", broker.amqpPort(),
                new ConnectionOptions().user(RabbitMqNode.USER).password(RabbitMqNode.PASSWORD))) {
            String replyTo = "/queue/replies-" + UUID.randomUUID();
            Receiver replies = guest.openReceiver(replyTo);
            replies.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            guest.openSender(queue).send(Message.create(new byte[] {42}).subject("POST").messageId("external-1")
                    .replyTo(replyTo));
            Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "no response through the attachment that logged in with its certificate");
            assertEquals("external-1", d.message().correlationId());
            assertEquals("200", d.message().subject());
            d.accept();
        }
        assertEquals(1, gateway.work.calls.get());
    }

    @Test
    void withoutAClientCertificateItIsNeverAttached() throws Exception {
        gateway("/queue/external-" + UUID.randomUUID(), false);
        // The broker needs a certificate: the handshake fails, again and again.
        TlsFailures.awaitSecondConnection(gateway.attachment);
        assertFalse(gateway.attachment.isAttached(), "attached without a client certificate");
        // What an operator reads of it (JMX, the warning logged): TLS failed, and the broker's alert.
        String failure = TlsFailures.awaitLastFailure(gateway.attachment);
        assertTrue(failure.startsWith("TLS failed: Received fatal alert: "), "last failure: " + failure);
    }
}
