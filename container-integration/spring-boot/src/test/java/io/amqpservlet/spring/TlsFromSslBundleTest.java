package io.amqpservlet.spring;

import io.amqpservlet.jetty.TestCertificates;
import io.amqpservlet.spring.sample.SampleApplication;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * AMQPS from a Boot SSL bundle ({@code amqp.servlet.ssl.bundle}), with SASL EXTERNAL for a client certificate
 * ({@code amqp.servlet.ssl.client-auth=want}, {@code amqp.servlet.sasl.external}): the certificate's subject DN is
 * the principal Spring Security sees.
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"amqp.servlet.port=0", "amqp.servlet.ssl.bundle=amqp", "amqp.servlet.ssl.client-auth=want",
                "amqp.servlet.sasl.external=true"})
class TlsFromSslBundleTest {
    private static TestCertificates certificates;

    @DynamicPropertySource
    static void bundle(DynamicPropertyRegistry registry) throws Exception {
        certificates = TestCertificates.create(Files.createTempDirectory("amqp-boot-tls"));
        registry.add("spring.ssl.bundle.jks.amqp.keystore.location", () -> "file:" + certificates.serverKeyStore);
        registry.add("spring.ssl.bundle.jks.amqp.keystore.password", () -> TestCertificates.PASSWORD);
        registry.add("spring.ssl.bundle.jks.amqp.keystore.type", () -> "PKCS12");
        registry.add("spring.ssl.bundle.jks.amqp.truststore.location", () -> "file:" + certificates.serverTrustStore);
        registry.add("spring.ssl.bundle.jks.amqp.truststore.password", () -> TestCertificates.PASSWORD);
        registry.add("spring.ssl.bundle.jks.amqp.truststore.type", () -> "PKCS12");
    }

    @Value("${" + AmqpListenerPort.PROPERTY + "}")
    int amqpsPort;

    private String whoami(boolean clientCertificate) throws Exception {
        ConnectionOptions options = new ConnectionOptions().sslEnabled(true);
        options.sslOptions().trustStoreLocation(certificates.clientTrustStore.toString())
                .trustStorePassword(TestCertificates.PASSWORD).trustStoreType("PKCS12");
        if (clientCertificate) {
            options.sslOptions().keyStoreLocation(certificates.clientKeyStore.toString())
                    .keyStorePassword(TestCertificates.PASSWORD).keyStoreType("PKCS12");
            options.saslOptions().addAllowedMechanism("EXTERNAL");
        }
        try (Client client = Client.create();
             Connection connection = client.connect("127.0.0.1", amqpsPort, options)) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openAnonymousSender();
            sender.send(Message.create().to("/whoami").subject("GET").replyTo(replies.address()));
            Delivery delivery = replies.receive(10, TimeUnit.SECONDS);
            assertNotNull(delivery);
            return delivery.message().subject() + " " + new String((byte[]) delivery.message().body(),
                    StandardCharsets.UTF_8);
        }
    }

    @Test
    void certificateUserIsThePrincipal() throws Exception {
        assertEquals("200 {\"name\":\"" + TestCertificates.CLIENT_DN + "\",\"authorities\":[]}", whoami(true));
    }

    @Test
    void anonymousOverTlsIsUnauthorized() throws Exception {
        assertEquals("401", whoami(false).substring(0, 3));
    }
}
