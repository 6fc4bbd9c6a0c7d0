package io.amqpservlet.spring;

import io.amqpservlet.jetty.TestCertificates;
import io.amqpservlet.spring.sample.SampleApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The AMQPS listener follows its Boot SSL bundle when Boot reloads it ({@code reload-on-update}): the key store
 * replaced on disk, the next TLS handshake on the AMQP port presents the new certificate, without a restart.
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"amqp.servlet.port=0", "amqp.servlet.ssl.bundle=amqp",
                "spring.ssl.bundle.jks.amqp.reload-on-update=true",
                "spring.ssl.bundle.watch.file.quiet-period=100ms"})
class TlsBundleReloadTest {
    private static final int WAIT_SECONDS = 30;
    private static Path dir;
    private static Path keyStore;

    @DynamicPropertySource
    static void bundle(DynamicPropertyRegistry registry) throws Exception {
        dir = Files.createTempDirectory("amqp-boot-reload");
        TestCertificates first = TestCertificates.create(Files.createDirectories(dir.resolve("first")));
        TestCertificates.create(Files.createDirectories(dir.resolve("second")));
        Path live = Files.createDirectories(dir.resolve("live"));
        keyStore = live.resolve("server.p12");
        Files.copy(first.serverKeyStore, keyStore);
        registry.add("spring.ssl.bundle.jks.amqp.keystore.location", () -> "file:" + keyStore);
        registry.add("spring.ssl.bundle.jks.amqp.keystore.password", () -> TestCertificates.PASSWORD);
        registry.add("spring.ssl.bundle.jks.amqp.keystore.type", () -> "PKCS12");
    }

    @Value("${" + AmqpListenerPort.PROPERTY + "}")
    int amqpsPort;

    @Test
    void aReloadedBundleIsServedWithoutARestart() throws Exception {
        byte[] first = certificate(dir.resolve("first").resolve("server.crt"));
        byte[] second = certificate(dir.resolve("second").resolve("server.crt"));
        assertArrayEquals(first, served(), "the first certificate");

        Path next = keyStore.resolveSibling("server.p12.next");
        Files.copy(dir.resolve("second").resolve("server.p12"), next);
        Files.move(next, keyStore, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!Arrays.equals(second, served())) {
            assertTrue(System.nanoTime() < deadline, "the renewed certificate not served within " + WAIT_SECONDS + " s");
            Thread.sleep(50);
        }
    }

    private static byte[] certificate(Path der) throws Exception {
        try (InputStream in = Files.newInputStream(der)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in).getEncoded();
        }
    }

    /** The certificate the AMQP port presents in a TLS handshake (any: this client checks nothing else). */
    private byte[] served() throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", amqpsPort)) {
            socket.startHandshake();
            Certificate[] chain = socket.getSession().getPeerCertificates();
            return chain[0].getEncoded();
        }
    }
}
