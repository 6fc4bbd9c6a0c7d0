package io.amqpservlet.gateway;

import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.EmbeddedArtemis;
import io.amqpservlet.jetty.LogCapture;
import io.amqpservlet.jetty.TestCertificates;
import org.eclipse.jetty.logging.JettyLevel;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --tls-reload-interval}: the AMQPS port's key store renewed in place, the way a Kubernetes secret is (the
 * path is a symbolic link through {@code ..data}, which the renewal points at a new directory), is served without a
 * restart; a renewal that is not a usable key store is refused and the certificate in use stays; an attachment's
 * trust store renewed in place lets it connect to a real Artemis broker it could not trust before; AMQPS and HTTPS
 * made from the same stores are watched once and renewed together, with one log line. The project's own
 * request client checks which certificate the port serves: with {@code --cacert} holding one server certificate,
 * it connects (exit 0) only when the port serves that one, and otherwise exits 60 (not trusted).
 */
@Timeout(120)
class GatewayTlsReloadTest {
    private static final int WAIT_SECONDS = 20;

    @TempDir
    Path dir;

    @Test
    void aKeyStoreRenewedInPlaceIsServedWithoutARestartAndAnUnusableOneIsRefused() throws Exception {
        TestCertificates first = TestCertificates.create(Files.createDirectories(dir.resolve("first")));
        TestCertificates second = TestCertificates.create(Files.createDirectories(dir.resolve("second")));
        Path secret = Files.createDirectories(dir.resolve("secret"));
        renew(secret, "..2026_11_28_1", Files.readAllBytes(first.serverKeyStore));
        Files.createSymbolicLink(secret.resolve("keystore.p12"), Path.of("..data", "keystore.p12"));

        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                "--amqps-port", "0", "--tls-keystore", secret.resolve("keystore.p12").toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD, "--tls-reload-interval", "100"}));
        g.start();
        try {
            String url = "amqps://localhost:" + g.amqpsPort() + "/whoami";
            String firstCertificate = dir.resolve("first").resolve("server.crt").toString();
            String secondCertificate = dir.resolve("second").resolve("server.crt").toString();
            assertEquals(0, Cli.request("--cacert", firstCertificate, url).exit, "the first certificate is served");
            assertEquals(60, Cli.request("--cacert", secondCertificate, url).exit);

            renew(secret, "..2026_11_28_2", Files.readAllBytes(second.serverKeyStore));
            await(() -> Cli.request("--cacert", secondCertificate, url).exit == 0, "the renewed certificate served");
            Cli renewed = Cli.request("--cacert", secondCertificate, url);
            assertEquals("anonymous", renewed.text(), renewed.toString());
            assertEquals(60, Cli.request("--cacert", firstCertificate, url).exit, "the first one no more");
            TlsReload reload = g.tlsReloads().get(0);
            assertEquals(1, reload.reloads());

            // Half a key store (a renewal written in place and read too early): refused, the renewed one stays.
            byte[] store = Files.readAllBytes(first.serverKeyStore);
            renew(secret, "..2026_11_28_3", java.util.Arrays.copyOf(store, store.length / 2));
            await(() -> reload.refusals() == 1, "the broken key store refused");
            assertEquals(0, Cli.request("--cacert", secondCertificate, url).exit, "still the renewed certificate");
            assertEquals(1, reload.reloads());

            // A good one again after it.
            renew(secret, "..2026_11_28_4", Files.readAllBytes(first.serverKeyStore));
            await(() -> Cli.request("--cacert", firstCertificate, url).exit == 0, "the next renewal served");
            assertEquals(2, reload.reloads());
        } finally {
            g.stop();
        }
    }

    @Test
    void amqpsAndHttpsFromTheSameStoresAreWatchedOnceAndRenewedTogetherInOneLogLine() throws Exception {
        TestCertificates first = TestCertificates.create(Files.createDirectories(dir.resolve("first")));
        TestCertificates second = TestCertificates.create(Files.createDirectories(dir.resolve("second")));
        Path keyStore = dir.resolve("keystore.p12");
        Files.copy(first.serverKeyStore, keyStore);
        Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                "--amqps-port", "0", "--https-port", "0", "--tls-keystore", keyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD, "--tls-reload-interval", "100"}));
        try (LogCapture log = LogCapture.of(JettyLevel.INFO, TlsReload.class.getName())) {
            g.start();
            // One watcher for both ports: one line at start, naming both.
            assertEquals(List.of("TLS for --amqps-port and --https-port serves CN=localhost"),
                    log.linesWith(" serves ").stream().map(GatewayTlsReloadTest::message)
                            .map(line -> line.substring(0, line.indexOf(" (valid until"))).toList());
            assertEquals(1, g.tlsReloads().size(), "one watcher for the one set of stores");

            Path renewed = dir.resolve("keystore.p12.new");
            Files.copy(second.serverKeyStore, renewed);
            Files.move(renewed, keyStore, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            String amqps = "amqps://localhost:" + g.amqpsPort() + "/whoami";
            String secondCertificate = dir.resolve("second").resolve("server.crt").toString();
            await(() -> Cli.request("--cacert", secondCertificate, amqps).exit == 0, "AMQPS serving the renewal");
            // HTTPS reloaded by the same check, before its one line was written.
            log.await(" reloaded: serving ");
            HttpResponse<String> https = trusting(second.clientTrustStore).send(HttpRequest.newBuilder(
                    URI.create("https://localhost:" + g.httpsPort() + "/echo")).POST(
                    HttpRequest.BodyPublishers.ofString("renewed")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("renewed", https.body());
            assertEquals(1, g.tlsReloads().get(0).reloads());
            assertEquals(List.of("TLS for --amqps-port and --https-port reloaded: serving CN=localhost"),
                    log.linesWith(" reloaded").stream().map(GatewayTlsReloadTest::message)
                            .map(line -> line.substring(0, line.indexOf(" (valid until"))).toList());
        } finally {
            g.stop();
        }
    }

    /** The text of a log line, after Jetty's prefix (time, level, logger, thread). */
    private static String message(String line) {
        return line.substring(line.indexOf("TLS for "));
    }

    /** A new HTTP/1.1 client (no pooled connection from an earlier handshake) that trusts {@code trustStore} only. */
    private static HttpClient trusting(Path trustStore) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore)) {
            trust.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
    }

    @Test
    void anAttachmentTakesARenewedTrustStoreAtItsNextConnect() throws Exception {
        // The broker's certificate is one the gateway's trust store does not hold yet: the attachment cannot
        // connect until the trust store is renewed in place, and then connects without a restart.
        TestCertificates broker = TestCertificates.create(Files.createDirectories(dir.resolve("broker")));
        TestCertificates other = TestCertificates.create(Files.createDirectories(dir.resolve("other")));
        Path trust = dir.resolve("trust.p12");
        Files.copy(other.clientTrustStore, trust);
        try (EmbeddedArtemis artemis = EmbeddedArtemis.startWithTls(broker.serverKeyStore, "orders")) {
            Gateway g = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                    "--attach", "amqps://127.0.0.1:" + artemis.tlsPort() + "/orders",
                    "--attach-truststore", trust.toString(), "--attach-truststore-password", TestCertificates.PASSWORD,
                    "--attach-min-reconnect-delay", "50", "--attach-max-reconnect-delay", "200",
                    "--tls-reload-interval", "100"}));
            g.start();
            try {
                AmqpBrokerAttachment attachment = g.attachments().get(0);
                await(() -> attachment.getFailures() >= 2, "failed twice against an untrusted broker");
                assertTrue(!attachment.isAttached());

                Path renewed = dir.resolve("trust.p12.new");
                Files.copy(broker.clientTrustStore, renewed);
                Files.move(renewed, trust, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                await(attachment::isAttached, "attached with the renewed trust store");
                assertEquals(1, g.tlsReloads().get(0).reloads());
            } finally {
                g.stop();
            }
        }
    }

    @Test
    void zeroTurnsReloadingOffButTheCertificateServedIsStillAMeter() throws Exception {
        TestCertificates certificates = TestCertificates.create(dir);
        Gateway off = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "-1", "--http-port", "-1",
                "--amqps-port", "0", "--tls-keystore", certificates.serverKeyStore.toString(),
                "--tls-keystore-password", TestCertificates.PASSWORD, "--tls-reload-interval", "0",
                "--metrics-port", "0"}));
        off.start();
        try {
            TlsReload reload = off.tlsReloads().get(0);
            assertTrue(!reload.checks(), "never looks again");
            assertEquals("CN=localhost", reload.servedCertificate().getSubjectX500Principal().getName());
            // keytool -validity 2: the certificate expires in two days, less the seconds the test has taken.
            HttpResponse<String> scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + off.metricsPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            Matcher m = Pattern.compile("(?m)^amqp_servlet_tls_certificate_expiry_seconds\\{tls=\"--amqps-port\"\\} "
                    + "(\\S+)$").matcher(scrape.body());
            assertTrue(m.find(), scrape.body());
            double seconds = Double.parseDouble(m.group(1));
            assertTrue(seconds > 2 * 86_400 - 600 && seconds <= 2 * 86_400, "expires in " + seconds + " s");
        } finally {
            off.stop();
        }
        Gateway plain = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "-1"}));
        assertTrue(plain.tlsReloads().isEmpty(), "no TLS, nothing to know");
    }

    /**
     * Renews the secret as Kubernetes does: the new content in a directory of its own, then the {@code ..data}
     * link pointed at it in one rename.
     */
    private static void renew(Path secret, String generation, byte[] keyStore) throws Exception {
        Path dir = Files.createDirectories(secret.resolve(generation));
        Files.write(dir.resolve("keystore.p12"), keyStore);
        Path link = secret.resolve("..data_tmp");
        Files.createSymbolicLink(link, Path.of(generation));
        Files.move(link, secret.resolve("..data"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within " + WAIT_SECONDS + " s: " + what);
            Thread.sleep(50);
        }
    }
}
