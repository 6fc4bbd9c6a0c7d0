package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpSocketClient.Response;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.servlet.security.ConstraintMapping;
import org.eclipse.jetty.ee11.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The SASL identity of the connection is the request's user (docs/design.md §3): servlet security constraints apply to
 * AMQP requests through {@link AmqpAuthenticator}, and {@code getUserPrincipal()} names the user with or without
 * a security handler.
 */
@Timeout(60)
class AmqpRequestPrincipalTest {
    private Server server;
    private HashLoginService logins;
    private int port;

    /** 200 with the principal's name (or {@code none}) as body, {@code x-admin} and {@code x-auth-type}. */
    static final class WhoAmI extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Principal user = request.getUserPrincipal();
            response.setHeader("x-admin", Boolean.toString(request.isUserInRole("admin")));
            response.setHeader("x-auth-type", String.valueOf(request.getAuthType()));
            response.getOutputStream().write((user == null ? "none" : user.getName()).getBytes(StandardCharsets.UTF_8));
        }
    }

    private void start(boolean withSecurityHandler) throws Exception {
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("a-pw"), new String[] {"admin"});
        users.addUser("bob", Credential.getCredential("b-pw"), new String[] {"user"});
        logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        logins.start();
        AmqpConnectionFactory factory = new AmqpConnectionFactory(new HttpConfiguration(),
                new EngineConfig().anonymousAllowed(true));
        factory.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1, factory);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(withSecurityHandler
                ? ServletContextHandler.SECURITY : ServletContextHandler.NO_SESSIONS);
        context.setContextPath("/");
        context.addServlet(new ServletHolder(new WhoAmI()), "/admin/*");
        context.addServlet(new ServletHolder(new WhoAmI()), "/whoami");
        if (withSecurityHandler) {
            ConstraintSecurityHandler security = (ConstraintSecurityHandler) context.getSecurityHandler();
            security.setLoginService(logins);
            security.setAuthenticator(new AmqpAuthenticator(new BasicAuthenticator()));
            ConstraintMapping admin = new ConstraintMapping();
            admin.setPathSpec("/admin/*");
            admin.setConstraint(Constraint.from("admin"));
            security.addConstraintMapping(admin);
        }
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (logins != null) {
            logins.stop();
        }
    }

    private Response get(EngineConfig clientConfig, String path) throws IOException {
        return get(clientConfig, path, null);
    }

    /** A GET on a new connection; {@code authorization}, when not null, is sent as that application-property. */
    private Response get(EngineConfig clientConfig, String path, String authorization) throws IOException {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null, clientConfig)) {
            AmqpWriter w = new AmqpWriter();
            MessageWriter m = new MessageWriter().wrap(w).startProperties().messageId("m").to(path).subject("GET")
                    .replyTo(client.replyAddress()).endProperties();
            if (authorization != null) {
                m.startApplicationProperties().put("authorization", authorization).endApplicationProperties();
            }
            m.end();
            client.send(w);
            client.awaitResponses(1);
            return client.responses.get(0);
        }
    }

    private static EngineConfig plain(String user, String password) {
        return AmqpSocketClient.defaultConfig().saslPlain(user, password);
    }

    private static String body(Response r) {
        return new String(r.body, StandardCharsets.UTF_8);
    }

    @Test
    void userInTheConstraintsRoleIsServed() throws Exception {
        start(true);
        Response r = get(plain("alice", "a-pw"), "/admin/panel");
        assertEquals("200", r.subject);
        assertEquals("alice", body(r));
        assertEquals("true", r.properties.get("x-admin"));
        assertEquals(AmqpAuthenticator.AUTH_TYPE, r.properties.get("x-auth-type"));
    }

    @Test
    void userWithoutTheRoleIsForbidden() throws Exception {
        start(true);
        assertEquals("403", get(plain("bob", "b-pw"), "/admin/panel").subject);
    }

    @Test
    void anonymousConnectionIsRefusedByAConstraint() throws Exception {
        start(true);
        // No user and no challenge an AMQP client could answer: Jetty's SecurityHandler forbids.
        assertEquals("403", get(AmqpSocketClient.defaultConfig(), "/admin/panel").subject);
    }

    @Test
    void basicCredentialsInAnApplicationPropertyDoNotAuthenticate() throws Exception {
        start(true);
        String alice = "Basic " + Base64.getEncoder().encodeToString("alice:a-pw".getBytes(StandardCharsets.UTF_8));
        assertEquals("403", get(AmqpSocketClient.defaultConfig(), "/admin/panel", alice).subject,
                "only the SASL identity authenticates an AMQP request");
        assertEquals("403", get(plain("bob", "b-pw"), "/admin/panel", alice).subject);
    }

    @Test
    void unconstrainedServletSeesTheSaslUserThroughTheSecurityHandler() throws Exception {
        start(true);
        Response bob = get(plain("bob", "b-pw"), "/whoami");
        assertEquals("200", bob.subject);
        assertEquals("bob", body(bob));
        assertEquals("false", bob.properties.get("x-admin"));
        Response anonymous = get(AmqpSocketClient.defaultConfig(), "/whoami");
        assertEquals("200", anonymous.subject);
        assertEquals("none", body(anonymous), "SASL ANONYMOUS is no user");
    }

    @Test
    void servletSeesTheSaslUserWithoutASecurityHandler() throws Exception {
        start(false);
        Response alice = get(plain("alice", "a-pw"), "/whoami");
        assertEquals("200", alice.subject);
        assertEquals("alice", body(alice));
        assertEquals("true", alice.properties.get("x-admin"), "the roles of the PLAIN login come along");
        assertEquals("none", body(get(AmqpSocketClient.defaultConfig(), "/whoami")));
    }
}
