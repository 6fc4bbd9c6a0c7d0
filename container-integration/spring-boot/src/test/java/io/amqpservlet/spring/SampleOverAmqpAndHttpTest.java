package io.amqpservlet.spring;

import io.amqpservlet.spring.sample.Answer;
import io.amqpservlet.spring.sample.SampleApplication;
import io.amqpservlet.spring.sample.SampleClients;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample application, with nothing but {@code amqp.servlet.port} set, answers the same requests the same way over
 * HTTP and over AMQP from three clients (our client library, protonj2, Qpid JMS): a GET with a path variable, a 404,
 * a POST of a JSON body by a Spring Security user, its validation 400, an anonymous POST's 401, and the principal
 * Spring Security sees.
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "amqp.servlet.port=0")
class SampleOverAmqpAndHttpTest {
    @LocalServerPort
    int httpPort;

    @Value("${" + AmqpListenerPort.PROPERTY + "}")
    int amqpPort;

    @Autowired
    MeterRegistry meters;

    private SampleClients clients;

    @BeforeEach
    void clients() {
        clients = new SampleClients(httpPort, amqpPort);
    }

    /** Every client's answer, checked against HTTP's. */
    private Answer sameEverywhere(String method, String path, String json, String user, boolean compareBodies)
            throws Exception {
        Answer http = clients.http(method, path, json, user);
        for (Map.Entry<String, SampleClients.Call> client : clients.all().entrySet()) {
            Answer answer = client.getValue().call(method, path, json, user);
            assertEquals(http.status(), answer.status(), client.getKey() + " " + method + " " + path);
            if (compareBodies) {
                assertTrue(SampleClients.sameBody(http.body(), answer.body()),
                        client.getKey() + " " + method + " " + path + ": " + answer.body() + " against HTTP's "
                                + http.body());
            }
        }
        return http;
    }

    @Test
    void getWithAPathVariableAnswersAlike() throws Exception {
        Answer answer = sameEverywhere("GET", "/orders/1", null, null, true);
        assertEquals(new Answer(200, "{\"id\":\"1\",\"item\":\"tea\",\"quantity\":2}"), answer);
    }

    @Test
    void unknownOrderIs404Everywhere() throws Exception {
        // Boot's error body carries a timestamp: statuses are compared, and the body names the path.
        Answer answer = sameEverywhere("GET", "/orders/9", null, null, false);
        assertEquals(404, answer.status());
        assertEquals(404, clients.ours("GET", "/orders/9", null, null).status());
        assertTrue(clients.protonj2("GET", "/orders/9", null, null).body().contains("\"path\":\"/orders/9\""));
    }

    @Test
    void postOfAJsonBodyByAUserAnswersAlike() throws Exception {
        Answer answer = sameEverywhere("POST", "/orders", "{\"item\":\"tea\",\"quantity\":3}",
                SampleApplication.USER, true);
        assertEquals(new Answer(201, "{\"id\":\"tea-3\",\"item\":\"tea\",\"quantity\":3}"), answer);
    }

    @Test
    void invalidBodyIs400Everywhere() throws Exception {
        assertEquals(400, sameEverywhere("POST", "/orders", "{\"item\":\"\",\"quantity\":0}",
                SampleApplication.USER, false).status());
    }

    @Test
    void anonymousPostIs401Everywhere() throws Exception {
        assertEquals(401, sameEverywhere("POST", "/orders", "{\"item\":\"tea\",\"quantity\":1}", null, false)
                .status());
    }

    @Test
    void saslPlainUserIsThePrincipalSpringSecuritySees() throws Exception {
        Answer answer = sameEverywhere("GET", "/whoami", null, SampleApplication.USER, true);
        assertEquals(new Answer(200, "{\"name\":\"alice\",\"authorities\":[\"FACTOR_PASSWORD\",\"ROLE_USER\"]}"), answer);
    }

    @Test
    void wrongPasswordIsRefusedInSasl() {
        Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> new SampleClients(httpPort, amqpPort).protonj2("GET", "/whoami", null, "mallory"));
        assertNotNull(refused);
    }

    @Test
    void amqpValueMapReachesRequestBodyMapAsJsonAndComesBackAMap() throws Exception {
        try (Client client = Client.create();
             Connection connection = client.connect("127.0.0.1", amqpPort, new ConnectionOptions())) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openAnonymousSender();
            Map<String, Object> order = new LinkedHashMap<>();
            order.put("item", "tea");
            order.put("quantity", 2);
            sender.send(Message.create(order).to("/echo").subject("POST").replyTo(replies.address()));
            Delivery delivery = replies.receive(10, TimeUnit.SECONDS);
            assertNotNull(delivery);
            Message<Object> response = delivery.message();
            assertEquals("200", response.subject());
            Map<?, ?> answer = assertInstanceOf(Map.class, response.body());
            assertEquals(Map.of("item", "tea", "quantity", 2L, "seen", true), answer);
        }
    }

    @Test
    void connectorCountersAreMetersBesideJettys() throws Exception {
        double before = meters.get("amqp.servlet.requests").tags("connector.name", "amqp", "outcome", "served")
                .functionCounter().count();
        assertEquals(new Answer(200, "{\"id\":\"1\",\"item\":\"tea\",\"quantity\":2}"),
                clients.ours("GET", "/orders/1", null, null));
        assertEquals(before + 1, meters.get("amqp.servlet.requests").tags("connector.name", "amqp", "outcome",
                "served").functionCounter().count(), "the request counts as served");
        // amqp-servlet-micrometer's meters (docs/jetty.md, "Micrometer meters"), the names the gateway serves.
        for (String name : List.of("amqp.servlet.requests", "amqp.servlet.requests.timed.out",
                "amqp.servlet.responses.late", "amqp.servlet.requests.active", "amqp.servlet.connections",
                "amqp.servlet.connections.refused", "amqp.servlet.handshakes.evicted",
                "amqp.servlet.source.addresses", "amqp.servlet.budget.used", "amqp.servlet.budget.free",
                "amqp.servlet.budget.max", "amqp.servlet.budget.peak")) {
            assertFalse(meters.find(name).tag("connector.name", "amqp").meters().isEmpty(), name);
        }
        assertEquals(4, meters.get("amqp.servlet.requests").tag("connector.name", "amqp").functionCounters().size(),
                "one counter per outcome");
        assertEquals(64.0 * 1024 * 1024, meters.get("amqp.servlet.budget.max").tag("connector.name", "amqp").gauge()
                .value(), "amqp.servlet.limits.max-buffered-bytes");
        assertEquals("bytes", meters.get("amqp.servlet.budget.max").gauge().getId().getBaseUnit());
        assertTrue(meters.find("amqp.servlet.attach.state").meters().isEmpty(), "no attachment");
        // Boot's own Jetty meters count the AMQP connector's connections too, under the same tag.
        assertFalse(meters.find("jetty.connections.messages.in").tag("connector.name", "amqp").meters().isEmpty(),
                () -> "jetty meters: " + meters.find("jetty.connections.messages.in").meters());
    }
}
