package io.amqpservlet.jetty;

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
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SASL EXTERNAL to the broker ({@link AmqpBrokerAttachment#setSaslExternal}) end to end against a real ActiveMQ
 * Artemis 2.55.0: its TLS acceptor needs a client certificate and offers EXTERNAL only, and Artemis' certificate login
 * ({@code TextFileCertificateLoginModule}) maps the certificate's subject to the broker user {@code gateway}, whose
 * role may consume the queue. Clients send requests as alice on the plain port.
 */
@Timeout(120)
class AttachSaslExternalArtemisTest {
    private static final String QUEUE = "orders";
    private static final long WAIT_SECONDS = 20;
    @TempDir
    static Path dir;
    private static TestCertificates certificates;
    private static SecuredArtemis broker;
    private static Client client;

    private AttachedGateway gateway;

    @BeforeAll
    static void startBroker() throws Exception {
        certificates = TestCertificates.create(dir);
        broker = new SecuredArtemis(QUEUE).user("alice", "alice-pw")
                .tlsWithClientCertificates(certificates, "gateway").start();
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

    private AttachedGateway gateway(boolean withCertificate) throws Exception {
        gateway = new AttachedGateway("amqps://127.0.0.1:" + broker.tlsPort() + "/" + QUEUE, 2);
        // The broker's certificate trusted; the client certificate presented when withCertificate.
        gateway.attachment.setSslContextFactory(
                certificates.clientTls(withCertificate ? certificates.clientKeyStore : null));
        gateway.attachment.setSaslExternal(true);
        return gateway.start();
    }

    @Test
    void attachesWithItsClientCertificateAndServesTheQueue() throws Exception {
        gateway(true).awaitAttached(WAIT_SECONDS * 1000);
        // The broker took the certificate's subject for its user gateway (cert-users.properties).
        assertEquals(java.util.Set.of("gateway"), broker.sessionUsers());
        try (Connection alice = client.connect("127.0.0.1", broker.port(),
                new ConnectionOptions().user("alice").password("alice-pw"))) {
            Receiver replies = alice.openDynamicReceiver();
            alice.openSender(QUEUE).send(Message.create(new byte[] {42}).subject("POST").messageId("external-1")
                    .replyTo(replies.address()));
            Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "no response through the attachment that logged in with its certificate");
            assertEquals("external-1", d.message().correlationId());
            assertEquals("200", d.message().subject());
        }
        assertEquals(1, gateway.work.calls.get());
    }

    @Test
    void externalWithoutTlsOrWithAUserInTheUriDoesNotStart() {
        for (String uri : new String[] {"amqp://127.0.0.1:1/" + QUEUE, "amqps://app:pw@127.0.0.1:1/" + QUEUE}) {
            org.eclipse.jetty.server.Server s = new org.eclipse.jetty.server.Server();
            AmqpBrokerAttachment attachment = new AmqpBrokerAttachment(s);
            attachment.setUri(uri);
            attachment.setSaslExternal(true);
            s.addConnector(attachment);
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, s::start);
            assertEquals(IllegalStateException.class, e.getClass(), uri + ": " + e);
        }
    }

    @Test
    void withoutAClientCertificateItIsNeverAttached() throws Exception {
        gateway(false);
        // The broker needs a certificate: the handshake fails, again and again.
        TlsFailures.awaitSecondConnection(gateway.attachment);
        assertFalse(gateway.attachment.isAttached(), "attached without a client certificate");
        // What an operator reads of it (JMX, the warning logged): TLS failed, and the broker's alert.
        String failure = TlsFailures.awaitLastFailure(gateway.attachment);
        assertTrue(failure.startsWith("TLS failed: Received fatal alert: "), "last failure: " + failure);
    }
}
