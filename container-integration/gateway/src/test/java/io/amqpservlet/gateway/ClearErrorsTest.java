package io.amqpservlet.gateway;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a new user gets wrong first, said in the user's terms: the {@code request} command pointed at a port that
 * does not speak AMQP 1.0 (exit 8, curl's "weird server reply"), a user and password for a server that takes none
 * (exit 67), and a {@code --config} file the gateway cannot read (exit 2, and why).
 */
@Timeout(60)
class ClearErrorsTest {
    @TempDir
    static Path dir;
    private static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        gateway = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0"}));
        gateway.start();
    }

    @AfterAll
    static void stop() throws Exception {
        gateway.stop();
    }

    @Test
    void anHttpPortIsNotAnAmqpServer() {
        Cli r = Cli.request("amqp://127.0.0.1:" + gateway.httpPort() + "/echo");
        assertEquals(8, r.exit, r.toString());
        assertEquals("amqp-servlet request: 127.0.0.1:" + gateway.httpPort() + " is not an AMQP server: it answered "
                + "in HTTP (is it an HTTP port?)\n", r.err);
    }

    @Test
    void anAmqp091PortSaysWhichAmqpItSpeaks() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread broker = new Thread(() -> {
                // What a broker's AMQP 0-9-1 port answers to any other protocol header (AMQP 0-9-1 §4.2.2).
                try (Socket s = server.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                    in.readNBytes(8);
                    out.write(new byte[] {'A', 'M', 'Q', 'P', 0, 0, 9, 1});
                    out.flush();
                } catch (Exception ignored) {
                    // the client's side of the test reports what it saw
                }
            });
            broker.start();
            Cli r = Cli.request("-m", "10", "amqp://127.0.0.1:" + server.getLocalPort() + "/echo");
            broker.join();
            assertEquals(8, r.exit, r.toString());
            assertTrue(r.err.contains("speaks AMQP 0-9-1, not AMQP 1.0"), r.err);
        }
    }

    @Test
    void aUserForAServerThatOffersAnonymousOnlyIsToldToLeaveItOut() {
        Cli r = Cli.request("-u", "alice:secret", "amqp://127.0.0.1:" + gateway.amqpPort() + "/echo");
        assertEquals(67, r.exit, r.toString());
        assertEquals("amqp-servlet request: authentication failed: the server takes no user and password, it offers "
                + "ANONYMOUS only (leave out -u)\n", r.err);
    }

    @Test
    void anUnreadableConfigFileSaysWhy() throws Exception {
        Path missing = dir.resolve("missing.properties");
        assertEquals("cannot read config " + missing + ": no such file or directory", configError(missing));
        assertEquals("cannot read config " + dir + ": is a directory", configError(dir));
        Path latin1 = Files.write(dir.resolve("latin1.properties"), "user.1=j\u00f6rg:pw\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("cannot read config " + latin1 + ": not UTF-8 text", configError(latin1));
    }

    private static String configError(Path file) {
        return assertThrows(GatewayOptions.UsageException.class,
                () -> GatewayOptions.parse(new String[] {"--config", file.toString()})).getMessage();
    }
}
