package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.CustomRequestLog;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jetty's {@link RequestLog} records AMQP requests as it records HTTP ones (docs/jetty.md, "Logs"): the server's
 * {@link CustomRequestLog} writes a line for each, with the client's address, the SASL user, the method, target
 * and protocol ({@code amqp}), the status and the body bytes sent.
 */
@Timeout(60)
class AmqpRequestLogTest {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private Server server;
    private ServerConnector amqp;
    private ServerConnector http;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private void start(String format) throws Exception {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("secret"), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        server = new Server();
        server.addBean(logins);
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true).saslRequired(false));
        factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        amqp = new ServerConnector(server, 1, 1, factory);
        amqp.setHost("127.0.0.1");
        server.addConnector(amqp);
        http = new ServerConnector(server, 1, 1);
        http.setHost("127.0.0.1");
        server.addConnector(http);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new TestServlets.Echo()), "/echo");
        server.setHandler(context);
        server.setRequestLog(new CustomRequestLog(lines::add, format));
        server.start();
    }

    private void awaitLines(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lines.size() < count) {
            assertTrue(System.nanoTime() < deadline, "request log lines: " + lines);
            Thread.sleep(10);
        }
    }

    @Test
    void anAmqpRequestIsLoggedAsAnHttpOneWithItsUserAndProtocol() throws Exception {
        start(CustomRequestLog.NCSA_FORMAT);
        try (AmqpSocketClient client = AmqpSocketClient.connect(amqp.getLocalPort(), "/echo",
                AmqpSocketClient.defaultConfig().saslPlain("alice", "secret"))) {
            AmqpWriter w = new AmqpWriter();
            byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
            new MessageWriter().wrap(w).startProperties().messageId("m").to("/echo?x=1").subject("POST")
                    .replyTo(client.replyAddress()).endProperties().data(body, 0, body.length).end();
            client.send(w);
            client.awaitResponses(1);
        }
        awaitLines(1);
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + http.getLocalPort() + "/echo")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        awaitLines(2);

        String amqpLine = lines.get(0);
        assertTrue(amqpLine.startsWith("127.0.0.1 - alice ["), amqpLine);
        assertTrue(amqpLine.endsWith("\"POST /echo?x=1 amqp\" 200 5"), amqpLine);
        String httpLine = lines.get(1);
        assertTrue(httpLine.startsWith("127.0.0.1 - - ["), httpLine);
        assertTrue(httpLine.endsWith("\"GET /echo HTTP/1.1\" 200 0"), httpLine);
    }

    @Test
    void theProtocolFieldTellsAmqpFromHttpInACustomFormat() throws Exception {
        start("%{client}a %H %m %U %s");
        try (AmqpSocketClient client = AmqpSocketClient.connect(amqp.getLocalPort(), "/echo")) {
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId("m").to("/missing").subject("GET")
                    .replyTo(client.replyAddress()).endProperties().end();
            client.send(w);
            client.awaitResponses(1);
        }
        awaitLines(1);
        assertEquals("127.0.0.1 amqp GET /missing 404", lines.get(0));
    }
}
