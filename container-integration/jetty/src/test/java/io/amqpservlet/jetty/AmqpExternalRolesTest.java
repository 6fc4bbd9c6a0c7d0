package io.amqpservlet.jetty;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.client.AmqpClientException;
import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.client.ClientTls;
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
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.security.Credential;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Roles for SASL EXTERNAL users ({@link AmqpConnectionFactory#setExternalLoginService}): the certificate's subject
 * DN is looked up in a Jetty {@code HashLoginService} (an entry with an empty password), so a servlet security
 * constraint on a role serves the certificate holder; real TLS with certificates made by {@code keytool}, our
 * {@code AmqpRequestClient} with a client certificate as the client.
 */
@Timeout(60)
class AmqpExternalRolesTest {
    @TempDir
    static Path dir;
    private static TestCertificates certificates;

    private Server server;
    private int port;

    /** 200 with the user's name and whether it has role {@code admin}. */
    static final class WhoAmI extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String user = request.getUserPrincipal().getName();
            response.getWriter().print(user + " admin=" + request.isUserInRole("admin"));
        }
    }

    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = TestCertificates.create(dir);
    }

    /** A TLS server wanting client certificates, /admin/* for role admin; DN roles from the realm when asked. */
    private void start(boolean externalRoles) throws Exception {
        UserStore users = new UserStore();
        users.addUser(TestCertificates.CLIENT_DN, Credential.getCredential(""), new String[] {"admin"});
        users.addUser("bob", Credential.getCredential("b-pw"), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        server = new Server();
        server.addBean(logins);
        AmqpConnectionFactory amqp = new AmqpConnectionFactory(new HttpConfiguration(), new EngineConfig());
        amqp.setSaslExternal(true);
        amqp.setPlainAuthenticator(new LoginServicePlainAuthenticator(logins));
        if (externalRoles) {
            amqp.setExternalLoginService(logins);
        }
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(certificates.serverKeyStore.toString());
        ssl.setKeyStorePassword(TestCertificates.PASSWORD);
        ssl.setTrustStorePath(certificates.serverTrustStore.toString());
        ssl.setTrustStorePassword(TestCertificates.PASSWORD);
        ssl.setWantClientAuth(true);
        ServerConnector tls = new ServerConnector(server, new SslConnectionFactory(ssl, amqp.getProtocol()), amqp);
        tls.setHost("127.0.0.1");
        server.addConnector(tls);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SECURITY);
        context.addServlet(new ServletHolder(new WhoAmI()), "/admin/*");
        ConstraintSecurityHandler security = (ConstraintSecurityHandler) context.getSecurityHandler();
        security.setLoginService(logins);
        security.setAuthenticator(new AmqpAuthenticator(new BasicAuthenticator()));
        ConstraintMapping admin = new ConstraintMapping();
        admin.setPathSpec("/admin/*");
        admin.setConstraint(Constraint.from("admin"));
        security.addConstraintMapping(admin);
        server.setHandler(context);
        server.start();
        port = tls.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private AmqpResponse get(EngineConfig sasl, boolean withCertificate) throws IOException {
        long deadline = AmqpRequestClient.now() + 10_000;
        ClientTls tls = ClientTls.create(null, true, withCertificate ? certificates.clientKeyStore : null,
                TestCertificates.PASSWORD);
        try (AmqpRequestClient client = AmqpRequestClient.connect("127.0.0.1", port, "/admin/x", sasl, deadline,
                tls)) {
            return client.exchange("GET", "/admin/x", Map.of(), null, null, deadline);
        }
    }

    @Test
    void certificateUserGetsItsRolesFromTheLoginService() throws Exception {
        start(true);
        AmqpResponse r = get(new EngineConfig().saslExternal(), true);
        assertEquals(200, r.status(), r.bodyText());
        assertEquals(TestCertificates.CLIENT_DN + " admin=true", r.bodyText());
    }

    @Test
    void withoutTheLookupACertificateUserHasNoRoles() throws Exception {
        start(false);
        assertEquals(403, get(new EngineConfig().saslExternal(), true).status());
    }

    @Test
    void theDnsEmptyPasswordEntryCannotLogInWithPlain() throws Exception {
        start(true);
        AmqpClientException e = assertThrows(AmqpClientException.class,
                () -> get(new EngineConfig().saslPlain(TestCertificates.CLIENT_DN, ""), false));
        assertEquals(AmqpClientException.LOGIN_DENIED, e.exitCode(), e.toString());
        assertEquals(403, get(new EngineConfig().saslPlain("bob", "b-pw"), false).status()); // bob is no admin
    }
}
