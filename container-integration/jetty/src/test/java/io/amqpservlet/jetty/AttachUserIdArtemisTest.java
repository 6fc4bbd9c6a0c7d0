package io.amqpservlet.jetty;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryState;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.Tracker;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.ee11.servlet.security.ConstraintMapping;
import org.eclipse.jetty.ee11.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.security.Credential;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The request's user from the message's broker-validated user-id ({@link AmqpBrokerAttachment#setTrustUserId}),
 * against a real ActiveMQ Artemis 2.55.0 with security on: users alice and bob send with SASL PLAIN, the gateway logs
 * in as a user of its own, and the broker runs the user-id check of docs/attach.md ({@link UserIdCheckPlugin}). The
 * servlets sit under a {@code ConstraintSecurityHandler} with {@link AmqpAuthenticator}: {@code /orders/admin/*}
 * needs role {@code admin}, which the factory's external login service gives alice.
 */
@Timeout(120)
class AttachUserIdArtemisTest {
    private static final String QUEUE = "orders";
    private static final long WAIT_SECONDS = 20;
    private static SecuredArtemis broker;
    private static Client client;

    private Server server;
    private final AtomicInteger calls = new AtomicInteger();

    /** Answers {@code principal|remoteUser|authType|admin=<isUserInRole>}, "-" for what is null. */
    final class WhoSent extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            calls.incrementAndGet();
            String principal = request.getUserPrincipal() == null ? "-" : request.getUserPrincipal().getName();
            String remoteUser = request.getRemoteUser() == null ? "-" : request.getRemoteUser();
            String authType = request.getAuthType() == null ? "-" : request.getAuthType();
            response.setContentType("text/plain");
            response.getWriter().print(principal + "|" + remoteUser + "|" + authType + "|admin="
                    + request.isUserInRole("admin"));
        }
    }

    @BeforeAll
    static void startBroker() throws Exception {
        broker = new SecuredArtemis(QUEUE).user("alice", "alice-pw").user("bob", "bob-pw")
                .user("gateway", "gateway-pw").plugin(new UserIdCheckPlugin()).start();
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
        if (server != null) {
            server.stop();
        }
    }

    /**
     * A gateway attached to the queue as user {@code gateway}, trusting user-id or not; {@code constrained} puts the
     * servlet under a security handler, else it is a plain servlet context.
     */
    private AmqpBrokerAttachment startGateway(boolean trustUserId, boolean constrained) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(16, 2);
        threads.setName("attach-user-id");
        server = new Server(threads);
        UserStore users = new UserStore();
        // Users authenticated elsewhere (here by the broker) are listed with an empty password and their roles.
        users.addUser("alice", Credential.getCredential(""), new String[] {"admin"});
        users.addUser("bob", Credential.getCredential(""), new String[] {"user"});
        HashLoginService logins = new HashLoginService("amqp");
        logins.setUserStore(users);
        server.addBean(logins);
        AmqpConnectionFactory factory = new AmqpConnectionFactory();
        factory.setExternalLoginService(logins);
        AmqpBrokerAttachment attachment = new AmqpBrokerAttachment(server, factory);
        attachment.setUri("amqp://gateway:gateway-pw@127.0.0.1:" + broker.port() + "/" + QUEUE);
        attachment.setCredit(4);
        attachment.setTrustUserId(trustUserId);
        server.addConnector(attachment);
        ServletContextHandler context = new ServletContextHandler(
                constrained ? ServletContextHandler.SECURITY : ServletContextHandler.NO_SECURITY);
        context.addServlet(new ServletHolder(new WhoSent()), "/orders/*");
        if (constrained) {
            ConstraintSecurityHandler security = (ConstraintSecurityHandler) context.getSecurityHandler();
            security.setLoginService(logins);
            security.setAuthenticator(new AmqpAuthenticator());
            ConstraintMapping admin = new ConstraintMapping();
            admin.setPathSpec("/orders/admin/*");
            admin.setConstraint(Constraint.from("admin"));
            security.addConstraintMapping(admin);
        }
        server.setHandler(context);
        server.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!attachment.isAttached()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not attached: " + attachment.getState());
            }
            Thread.sleep(10);
        }
        return attachment;
    }

    /** A producer logged in as {@code user}, with a reply queue of its own. */
    private static final class Producer implements AutoCloseable {
        final Connection connection;
        final Receiver replies;
        final Sender sender;

        Producer(String user, String password) throws Exception {
            connection = client.connect("127.0.0.1", broker.port(),
                    new ConnectionOptions().user(user).password(password));
            replies = connection.openDynamicReceiver();
            sender = connection.openSender(QUEUE);
            sender.openFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        /** Sends a GET for {@code path} claiming {@code userId} (null for none); returns its tracker. */
        Tracker send(String path, String userId) throws Exception {
            Message<String> request = Message.create("").subject("GET").to(path).replyTo(replies.address())
                    .messageId(path);
            if (userId != null) {
                request.userId(userId.getBytes(StandardCharsets.UTF_8));
            }
            return sender.send(request);
        }

        /** Sends and waits for the response: {@code status body}. */
        String exchange(String path, String userId) throws Exception {
            Tracker sent = send(path, userId);
            sent.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(DeliveryState.Type.ACCEPTED, sent.remoteState().getType(), "the broker took the request");
            Delivery d = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(d, "no response to " + path);
            d.accept();
            Message<Object> response = d.message();
            Object body = response.body();
            String text = body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8)
                    : String.valueOf(body);
            return response.subject() + " " + text;
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    @Test
    void aRequestAliceSentWithHerUserIdIsServedAsAliceWithHerRoles() throws Exception {
        startGateway(true, true);
        try (Producer alice = new Producer("alice", "alice-pw")) {
            assertEquals("200 alice|alice|" + AmqpAuthenticator.USER_ID_AUTH_TYPE + "|admin=true",
                    alice.exchange("/orders/42", "alice"));
            assertEquals("200 alice|alice|" + AmqpAuthenticator.USER_ID_AUTH_TYPE + "|admin=true",
                    alice.exchange("/orders/admin/report", "alice"));
        }
    }

    @Test
    void eachRequestOfOneConnectionIsMadeByItsOwnSender() throws Exception {
        startGateway(true, true);
        try (Producer alice = new Producer("alice", "alice-pw"); Producer bob = new Producer("bob", "bob-pw")) {
            for (int i = 0; i < 3; i++) {
                assertEquals("200 bob|bob|" + AmqpAuthenticator.USER_ID_AUTH_TYPE + "|admin=false",
                        bob.exchange("/orders/" + i, "bob"));
                assertEquals("200 alice|alice|" + AmqpAuthenticator.USER_ID_AUTH_TYPE + "|admin=true",
                        alice.exchange("/orders/" + i, "alice"));
            }
            // The constraint reads the request's own user: bob is not admin, whoever came before him.
            assertEquals("403", bob.exchange("/orders/admin/report", "bob").substring(0, 3));
        }
    }

    @Test
    void aSpoofedUserIdIsRefusedByTheBrokerAndNeverReachesTheServlet() throws Exception {
        startGateway(true, true);
        try (Producer bob = new Producer("bob", "bob-pw")) {
            Tracker spoofed = bob.send("/orders/admin/report", "alice");
            spoofed.awaitSettlement(WAIT_SECONDS, TimeUnit.SECONDS);
            assertEquals(DeliveryState.Type.REJECTED, spoofed.remoteState().getType(),
                    "the broker refuses a message whose user-id is not its sender's");
        }
        assertEquals(0, broker.messageCount(QUEUE));
        try (Producer bob = new Producer("bob", "bob-pw")) {
            // The gateway is still there and served nothing else: the next request is bob's own, and the only one.
            assertEquals("200 bob|bob|" + AmqpAuthenticator.USER_ID_AUTH_TYPE + "|admin=false",
                    bob.exchange("/orders/1", "bob"));
        }
        assertEquals(1, calls.get());
    }

    @Test
    void aRequestWithoutUserIdHasNoUser() throws Exception {
        startGateway(true, true);
        try (Producer alice = new Producer("alice", "alice-pw")) {
            assertEquals("200 -|-|-|admin=false", alice.exchange("/orders/42", null));
            // A constraint that needs a role refuses it (no challenge to send an AMQP client).
            assertEquals("403", alice.exchange("/orders/admin/report", null).substring(0, 3));
        }
    }

    @Test
    void withoutASecurityHandlerTheServletStillSeesTheUser() throws Exception {
        startGateway(true, false);
        try (Producer alice = new Producer("alice", "alice-pw")) {
            assertEquals("200 alice|alice|" + AmqpAuthenticator.USER_ID_AUTH_TYPE + "|admin=true",
                    alice.exchange("/orders/42", "alice"));
            assertEquals("200 -|-|-|admin=false", alice.exchange("/orders/43", null));
        }
    }

    @Test
    void withTheOptionOffTheUserIdMakesNoUser() throws Exception {
        AmqpBrokerAttachment attachment = startGateway(false, true);
        assertEquals(false, attachment.isTrustUserId());
        try (Producer alice = new Producer("alice", "alice-pw")) {
            assertEquals("200 -|-|-|admin=false", alice.exchange("/orders/42", "alice"));
            assertEquals("403", alice.exchange("/orders/admin/report", "alice").substring(0, 3));
        }
    }

    @Test
    void aRequestUserAndATrustedUserIdExcludeEachOther() {
        Server s = new Server();
        AmqpBrokerAttachment attachment = new AmqpBrokerAttachment(s);
        attachment.setUri("amqp://127.0.0.1:1/" + QUEUE);
        attachment.setRequestUser("everyone");
        attachment.setTrustUserId(true);
        s.addConnector(attachment);
        Exception e = assertThrows(Exception.class, s::start);
        assertEquals(IllegalStateException.class, e.getClass(), e.toString());
    }
}
