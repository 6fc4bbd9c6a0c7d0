package io.amqpservlet.spring.sample;

import io.amqpservlet.client.AmqpRequestClient;
import io.amqpservlet.client.AmqpResponse;
import io.amqpservlet.connector.engine.EngineConfig;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.Sender;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The same request through four clients: HTTP (the JDK's client), and AMQP through our client library, protonj2 and
 * Qpid JMS, each with SASL PLAIN when a user is given and ANONYMOUS otherwise. Each call opens and closes its
 * connection, so that users do not leak from one call to the next.
 */
public final class SampleClients {
    private static final long WAIT_SECONDS = 10;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private final int httpPort;
    private final int amqpPort;

    /**
     * @param httpPort the application's HTTP port
     * @param amqpPort its AMQP port
     */
    public SampleClients(int httpPort, int amqpPort) {
        this.httpPort = httpPort;
        this.amqpPort = amqpPort;
    }

    /** A client by name, for parameterised tests. */
    public interface Call {
        /**
         * Sends one request.
         *
         * @param method the HTTP method
         * @param path the request-target
         * @param json a JSON body, or null for none
         * @param user alice, or null for no user
         * @return the answer
         * @throws Exception when the client fails
         */
        Answer call(String method, String path, String json, String user) throws Exception;
    }

    /** The four clients, by name. */
    public Map<String, Call> all() {
        return Map.of("http", this::http, "amqp-servlet-client", this::ours, "protonj2", this::protonj2,
                "qpid-jms", this::qpidJms);
    }

    public Answer http(String method, String path, String json, String user) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json))
                .timeout(Duration.ofSeconds(WAIT_SECONDS));
        if (json != null) {
            request.header("content-type", "application/json");
        }
        if (user != null) {
            request.header("authorization", "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + SampleApplication.PASSWORD).getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    public Answer ours(String method, String path, String json, String user) throws Exception {
        EngineConfig config = user == null ? new EngineConfig().saslAnonymous()
                : new EngineConfig().saslPlain(user, SampleApplication.PASSWORD);
        long deadline = AmqpRequestClient.now() + WAIT_SECONDS * 1000;
        try (AmqpRequestClient client = AmqpRequestClient.connect("127.0.0.1", amqpPort, "/", config, deadline)) {
            AmqpResponse response = client.exchange(method, path, Map.of(), json == null ? null : "application/json",
                    json == null ? null : json.getBytes(StandardCharsets.UTF_8), deadline);
            return new Answer(response.status(), response.bodyText());
        }
    }

    public Answer protonj2(String method, String path, String json, String user) throws Exception {
        ConnectionOptions options = new ConnectionOptions();
        if (user != null) {
            // protonj2 takes ANONYMOUS over PLAIN when both are offered, unless told which to use.
            options.user(user).password(SampleApplication.PASSWORD).saslOptions().addAllowedMechanism("PLAIN");
        }
        try (Client client = Client.create();
             org.apache.qpid.protonj2.client.Connection connection = client.connect("127.0.0.1", amqpPort, options)) {
            Receiver replies = connection.openDynamicReceiver();
            Sender sender = connection.openAnonymousSender();
            org.apache.qpid.protonj2.client.Message<byte[]> request = json == null
                    ? org.apache.qpid.protonj2.client.Message.create()
                    : org.apache.qpid.protonj2.client.Message.create(json.getBytes(StandardCharsets.UTF_8));
            request.to(path).subject(method).replyTo(replies.address()).messageId("r-1");
            if (json != null) {
                request.contentType("application/json");
            }
            sender.send(request);
            Delivery delivery = replies.receive(WAIT_SECONDS, TimeUnit.SECONDS);
            assertNotNull(delivery, "no response within " + WAIT_SECONDS + " s");
            org.apache.qpid.protonj2.client.Message<Object> response = delivery.message();
            return new Answer(Integer.parseInt(response.subject()), text(response.body()));
        }
    }

    /**
     * Qpid JMS: JMSType is the method, the destination the request-target, a temporary queue the reply-to. A JMS
     * message cannot set AMQP's content-type (a TextMessage is text/plain), so a JSON object goes as a MapMessage, an
     * amqp-value map, which the controller reads as JSON; its answer comes back as a map (an ObjectMessage).
     */
    public Answer qpidJms(String method, String path, String json, String user) throws Exception {
        // Qpid JMS, too, takes ANONYMOUS over PLAIN when both are offered, unless told which to use.
        JmsConnectionFactory factory = new JmsConnectionFactory("amqp://127.0.0.1:" + amqpPort
                + "?jms.validatePropertyNames=false" + (user == null ? "" : "&amqp.saslMechanisms=PLAIN"));
        try (Connection connection = user == null ? factory.createConnection()
                : factory.createConnection(user, SampleApplication.PASSWORD)) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            MessageConsumer consumer = session.createConsumer(replies);
            MessageProducer producer = session.createProducer(session.createQueue(path));
            Message request;
            if (json == null) {
                request = session.createMessage();
            } else {
                MapMessage map = session.createMapMessage();
                for (Map.Entry<String, Object> e : JSON.readValue(json, MAP).entrySet()) {
                    map.setObject(e.getKey(), e.getValue());
                }
                request = map;
            }
            request.setJMSType(method);
            request.setJMSReplyTo(replies);
            producer.send(request);
            Message response = consumer.receive(WAIT_SECONDS * 1000);
            assertNotNull(response, "no response within " + WAIT_SECONDS + " s");
            String body;
            if (response instanceof BytesMessage b) {
                byte[] data = new byte[(int) b.getBodyLength()];
                b.readBytes(data);
                body = new String(data, StandardCharsets.UTF_8);
            } else if (response instanceof TextMessage t) {
                body = t.getText();
            } else if (response instanceof ObjectMessage o) {
                body = JSON.writeValueAsString(o.getObject());
            } else {
                body = "";
            }
            return new Answer(Integer.parseInt(response.getJMSType()), body);
        }
    }

    /**
     * Whether two bodies say the same: equal JSON (key order and number width aside, as a map that travelled as an
     * AMQP map may have neither), or equal text when either is not JSON.
     */
    public static boolean sameBody(String a, String b) {
        try {
            return JSON.readTree(a).equals(JSON.readTree(b));
        } catch (RuntimeException notJson) {
            return a.equals(b);
        }
    }

    private static String text(Object body) {
        if (body == null) {
            return "";
        }
        return body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : body.toString();
    }
}
