package io.amqpservlet.jetty;

import io.amqpservlet.jetty.AmqpSocketClient.Response;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.messaging.MessageId;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The connector sets exactly the documented {@link AmqpRequestAttributes}, from the message's own fields; a peer
 * cannot name or forge an attribute with an application-property.
 */
@Timeout(60)
class AmqpRequestAttributesTest {
    private Server server;
    private int port;

    /**
     * 200 with {@code x-attributes}: every request attribute name that is not Jetty's or the servlet container's
     * own, sorted; and for each {@link AmqpRequestAttributes} name, {@code x-<last segment>} = the value's text
     * (hex for bytes) and {@code x-<last segment>-type} = its class.
     */
    static final class Attributes extends HttpServlet {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) {
            if (request.getHeader("x-override") != null) {
                // The application's own changes win over the connector's values, as for any attribute.
                request.setAttribute(AmqpRequestAttributes.MESSAGE_ID, "replaced");
                request.removeAttribute(AmqpRequestAttributes.LINK_ADDRESS);
                request.setAttribute("app.own", "1");
            }
            List<String> names = new ArrayList<>();
            for (Enumeration<String> e = request.getAttributeNames(); e.hasMoreElements(); ) {
                String name = e.nextElement();
                if (!name.startsWith("org.eclipse.jetty.") && !name.startsWith("jakarta.servlet.")) {
                    names.add(name);
                }
            }
            Collections.sort(names);
            response.setHeader("x-attributes", String.join(",", names));
            for (String name : new String[] {AmqpRequestAttributes.MESSAGE_ID, AmqpRequestAttributes.CORRELATION_ID,
                    AmqpRequestAttributes.LINK_ADDRESS, AmqpRequestAttributes.DELIVERY_COUNT}) {
                Object value = request.getAttribute(name);
                if (value != null) {
                    String key = "x-" + name.substring(name.lastIndexOf('.') + 1);
                    response.setHeader(key, value instanceof byte[] b ? HexFormat.of().formatHex(b) : value.toString());
                    response.setHeader(key + "-type", value.getClass().getSimpleName());
                }
            }
            response.setStatus(200);
        }
    }

    @BeforeEach
    void startServer() throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1, new AmqpConnectionFactory());
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(new ServletHolder(new Attributes()), "/attrs/*");
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.stop();
    }

    @Test
    void messageFieldsBecomeTheDocumentedAttributes() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, "/attrs/link")) {
            UUID correlation = UUID.fromString("6f1c7e0a-93a5-4bb8-9e27-6a3f0d1b2c4d");
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).header(false, 4, 0, false, 3)
                    .startProperties().messageId("m-17").subject("GET").replyTo(client.replyAddress())
                    .correlationId(new MessageId().setUuid(correlation.getMostSignificantBits(),
                            correlation.getLeastSignificantBits()))
                    .endProperties().end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals(String.join(",", AmqpRequestAttributes.CORRELATION_ID, AmqpRequestAttributes.DELIVERY_COUNT,
                    AmqpRequestAttributes.LINK_ADDRESS, AmqpRequestAttributes.MESSAGE_ID), r.properties.get("x-attributes"));
            assertEquals("m-17", r.properties.get("x-message-id"));
            assertEquals("String", r.properties.get("x-message-id-type"));
            assertEquals(correlation.toString(), r.properties.get("x-correlation-id"));
            assertEquals("UUID", r.properties.get("x-correlation-id-type"));
            assertEquals("/attrs/link", r.properties.get("x-link-address"));
            assertEquals("3", r.properties.get("x-delivery-count"));
            assertEquals("Long", r.properties.get("x-delivery-count-type"));
        }
    }

    @Test
    void binaryAndUlongIdsKeepTheirTypesAndAbsentFieldsHaveNoAttribute() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties()
                    .messageId(new MessageId().setBinary(new byte[] {1, (byte) 0xab, 0x7f}, 0, 3))
                    .to("/attrs/relay").subject("GET").replyTo(client.replyAddress())
                    .endProperties().end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals("01ab7f", r.properties.get("x-message-id"));
            assertEquals("byte[]", r.properties.get("x-message-id-type"));
            assertNull(r.properties.get("x-correlation-id"), "no correlation-id, no attribute");
            assertNull(r.properties.get("x-link-address"), "a null-target (anonymous relay) link has no address");
            assertEquals("0", r.properties.get("x-delivery-count"), "no header: no earlier delivery attempt");
        }
    }

    @Test
    void theApplicationMayReplaceOrRemoveTheConnectorsAttributes() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, "/attrs/link")) {
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId("m-1").subject("GET")
                    .replyTo(client.replyAddress()).endProperties()
                    .startApplicationProperties().put("x-override", "yes").endApplicationProperties().end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals(String.join(",", "app.own", AmqpRequestAttributes.DELIVERY_COUNT,
                    AmqpRequestAttributes.MESSAGE_ID), r.properties.get("x-attributes"));
            assertEquals("replaced", r.properties.get("x-message-id"));
            assertNull(r.properties.get("x-link-address"), "removed by the servlet");
            assertEquals("0", r.properties.get("x-delivery-count"));
        }
    }

    @Test
    void applicationPropertiesNeverBecomeAttributes() throws Exception {
        try (AmqpSocketClient client = AmqpSocketClient.connect(port, null)) {
            AmqpWriter w = new AmqpWriter();
            new MessageWriter().wrap(w).startProperties().messageId(7).to("/attrs/x").subject("GET")
                    .replyTo(client.replyAddress()).endProperties()
                    .startApplicationProperties()
                    .put(AmqpRequestAttributes.MESSAGE_ID, "forged")
                    .put(AmqpRequestAttributes.LINK_ADDRESS, "forged")
                    .put(AmqpRequestAttributes.CORRELATION_ID, "forged")
                    .put("javax.servlet.include.request_uri", "/WEB-INF/web.xml")
                    .put("peer.chosen", "x")
                    .endApplicationProperties().end();
            client.send(w);
            client.awaitResponses(1);
            Response r = client.responses.get(0);
            assertEquals("200", r.subject);
            assertEquals(String.join(",", AmqpRequestAttributes.DELIVERY_COUNT, AmqpRequestAttributes.MESSAGE_ID),
                    r.properties.get("x-attributes"), "only the connector's own attributes");
            assertEquals("7", r.properties.get("x-message-id"), "the properties section's id, not the peer's property");
            assertEquals("Long", r.properties.get("x-message-id-type"));
            assertNull(r.properties.get("x-correlation-id"));
            assertNull(r.properties.get("x-link-address"));
        }
    }
}
