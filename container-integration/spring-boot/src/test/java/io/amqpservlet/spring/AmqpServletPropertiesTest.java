package io.amqpservlet.spring;

import io.amqpservlet.connector.engine.EngineConfig;
import io.amqpservlet.jetty.AmqpBrokerAttachment;
import io.amqpservlet.jetty.AmqpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The properties' defaults are the connector library's own, so that an application which sets only
 * {@code amqp.servlet.port} gets the connector as the library documents it; and the metadata the configuration
 * processor writes, which IDEs complete from, names every group.
 */
class AmqpServletPropertiesTest {
    private static AmqpServletConnectors connectorsWith(AmqpServletProperties properties) {
        AmqpServletConnectors connectors = new AmqpServletConnectors(properties, name -> {
            throw new AssertionError("no bundle");
        }, () -> null);
        connectors.customize(new Server());
        return connectors;
    }

    @Test
    void defaultsAreTheLibrarys() {
        AmqpServletProperties properties = new AmqpServletProperties();
        properties.setPort(0);
        properties.getAttach().setUri("amqp://127.0.0.1:5672/orders");
        AmqpServletConnectors connectors = connectorsWith(properties);
        AmqpConnectionFactory library = new AmqpConnectionFactory();
        for (AmqpConnectionFactory made : List.of(connectors.getListenerFactory(),
                connectors.getAttachment().getConnectionFactory())) {
            assertEquals(library.getServerName(), made.getServerName());
            assertEquals(library.getLinkCredit(), made.getLinkCredit());
            assertEquals(library.getRequestTimeout(), made.getRequestTimeout());
            assertEquals(library.getCloseTimeout(), made.getCloseTimeout());
            assertEquals(library.getWriteCoalescing(), made.getWriteCoalescing());
            assertEquals(library.getResponseBufferSize(), made.getResponseBufferSize());
            assertEquals(library.getQpidJmsHeartbeatMillis(), made.getQpidJmsHeartbeatMillis());
            assertEquals(library.isSaslExternal(), made.isSaslExternal());
            assertEquals(library.getMaxConnections(), made.getMaxConnections());
            assertEquals(library.getMaxHandshakingConnections(), made.getMaxHandshakingConnections());
            assertEquals(library.getMaxConnectionsPerAddress(), made.getMaxConnectionsPerAddress());
            assertEquals(library.getMaxHandshakesPerAddress(), made.getMaxHandshakesPerAddress());
            assertEquals(library.getMaxFailedLoginsPerAddress(), made.getMaxFailedLoginsPerAddress());
            assertEquals(library.getFailedLoginsWindowMillis(), made.getFailedLoginsWindowMillis());
            assertEquals(library.getMaxBufferedBytes(), made.getMaxBufferedBytes());
            assertEquals(library.getConnectionProperties(), made.getConnectionProperties());
            EngineConfig expected = library.getEngineConfig();
            EngineConfig engine = made.getEngineConfig();
            assertEquals(expected.anonymousAllowed(), engine.anonymousAllowed());
            assertEquals(expected.saslRequired(), engine.saslRequired());
            assertEquals(expected.saslTimeoutMillis(), engine.saslTimeoutMillis());
            assertEquals(expected.maxFrameSizeBytes(), engine.maxFrameSizeBytes());
            assertEquals(expected.channelMax(), engine.channelMax());
            assertEquals(expected.handleMax(), engine.handleMax());
            assertEquals(expected.maxLinksPerConnection(), engine.maxLinksPerConnection());
            assertEquals(expected.maxLinkBytesPerConnection(), engine.maxLinkBytesPerConnection());
            assertEquals(expected.maxUnsettledSentDeliveries(), engine.maxUnsettledSentDeliveries());
            assertEquals(expected.minPeerIdleTimeoutMillis(), engine.minPeerIdleTimeoutMillis());
            assertEquals(expected.partialFrameTimeoutMillis(), engine.partialFrameTimeoutMillis());
            assertEquals(expected.maxMessageSizeBytes(), engine.maxMessageSizeBytes());
            assertEquals(expected.maxDeliveriesInFlight(), engine.maxDeliveriesInFlight());
            assertEquals(expected.sessionIncomingWindowFrames(), engine.sessionIncomingWindowFrames());
            assertEquals(expected.maxBufferedMessagesPerLink(), engine.maxBufferedMessagesPerLink());
            assertEquals(expected.maxBufferedBytesPerConnection(), engine.maxBufferedBytesPerConnection());
            assertEquals(expected.maxPendingOutputBytes(), engine.maxPendingOutputBytes());
            assertEquals(expected.idleTimeoutMillis(), engine.idleTimeoutMillis());
            assertEquals(expected.decoderLimits(), engine.decoderLimits());
        }
        AmqpServletProperties.Attach attach = properties.getAttach();
        assertEquals(AmqpBrokerAttachment.DEFAULT_ATTACH_TIMEOUT_MILLIS, attach.getAttachTimeout().toMillis());
        assertEquals(AmqpBrokerAttachment.DEFAULT_MIN_RECONNECT_DELAY_MILLIS, attach.getMinReconnectDelay().toMillis());
        assertEquals(AmqpBrokerAttachment.DEFAULT_MAX_RECONNECT_DELAY_MILLIS, attach.getMaxReconnectDelay().toMillis());
        assertEquals(AmqpBrokerAttachment.DEFAULT_MAX_REPLY_LINKS, attach.getMaxReplyLinks());
        assertEquals(AmqpBrokerAttachment.DEFAULT_REPLY_LINK_IDLE_TIMEOUT_MILLIS,
                attach.getReplyLinkIdleTimeout().toMillis());
        AmqpBrokerAttachment made = connectors.getAttachment();
        assertEquals(attach.getAttachTimeout().toMillis(), made.getAttachTimeout());
        assertEquals(attach.getMaxReplyLinks(), made.getMaxReplyLinks());
        assertEquals(attach.getReplyLinkIdleTimeout().toMillis(), made.getReplyLinkIdleTimeout());
        assertEquals(0, made.getCredit());
        assertEquals(List.of("orders"), made.getAddresses());
        assertTrue(!attach.isAtMostOnce(), "at least once unless asked, as the library");
        assertEquals(attach.isAtMostOnce(), made.isAtMostOnce());
    }

    @Test
    void settingsReachTheConnector() {
        AmqpServletProperties properties = new AmqpServletProperties();
        properties.setPort(0);
        properties.setHost("127.0.0.1");
        properties.setLinkCredit(7);
        properties.setRequestTimeout(java.time.Duration.ofSeconds(3));
        properties.setWriteCoalescing(java.time.Duration.ofNanos(50_000));
        properties.getLimits().setMaxConnections(12);
        properties.getLimits().setMaxConnectionsPerAddress(5);
        properties.getLimits().setMaxHandshakesPerAddress(0);
        properties.getLimits().setMaxFailedLoginsPerAddress(4);
        properties.getLimits().setFailedLoginsWindow(java.time.Duration.ofSeconds(20));
        properties.getLimits().setMaxFrameSize(org.springframework.util.unit.DataSize.ofKilobytes(16));
        properties.getLimits().setHandleMax(31);
        properties.getLimits().setMaxLinksPerConnection(40);
        properties.getLimits().setMaxLinkBytesPerConnection(org.springframework.util.unit.DataSize.ofKilobytes(45));
        properties.getLimits().setMaxUnsettledSentDeliveries(50);
        properties.getLimits().setMaxBufferedMessagesPerLink(60);
        properties.getLimits().setMaxBufferedBytesPerConnection(org.springframework.util.unit.DataSize.ofKilobytes(70));
        properties.getLimits().setMinPeerIdleTimeout(java.time.Duration.ofMillis(800));
        properties.getLimits().setPartialFrameTimeout(java.time.Duration.ofSeconds(9));
        properties.getLimits().setMaxDecodeDepth(16);
        properties.getLimits().setMaxDecodeElements(5000);
        properties.getSasl().setTimeout(java.time.Duration.ofSeconds(4));
        properties.getConnectionProperties().put("product", "RabbitMQ");
        properties.getSasl().setAnonymous(false);
        AmqpServletConnectors connectors = connectorsWith(properties);
        AmqpConnectionFactory made = connectors.getListenerFactory();
        assertEquals("127.0.0.1", connectors.getListener().getHost());
        assertEquals(AmqpServletConnectors.LISTENER_NAME, connectors.getListener().getName());
        assertEquals(7, made.getLinkCredit());
        assertEquals(3000, made.getRequestTimeout());
        assertEquals(50, made.getWriteCoalescing());
        assertEquals(12, made.getMaxConnections());
        assertEquals(5, made.getMaxConnectionsPerAddress());
        assertEquals(0, made.getMaxHandshakesPerAddress(), "0 turns it off");
        assertEquals(4, made.getMaxFailedLoginsPerAddress());
        assertEquals(20_000, made.getFailedLoginsWindowMillis());
        assertEquals(16 * 1024, made.getMaxFrameSize());
        assertEquals(31, made.getHandleMax());
        assertEquals(40, made.getMaxLinksPerConnection());
        assertEquals(45 * 1024, made.getMaxLinkBytesPerConnection());
        assertEquals(50, made.getMaxUnsettledSentDeliveries());
        assertEquals(60, made.getMaxBufferedMessagesPerLink());
        assertEquals(70 * 1024, made.getMaxBufferedBytesPerConnection());
        assertEquals(800, made.getMinPeerIdleTimeout());
        assertEquals(9000, made.getPartialFrameTimeout());
        assertEquals(16, made.getMaxDecodeDepth());
        assertEquals(5000, made.getMaxDecodeElements());
        assertEquals(4000, made.getSaslTimeout());
        assertEquals("RabbitMQ", made.getConnectionProperties().get("product"));
        assertTrue(!made.getEngineConfig().anonymousAllowed());
        assertNull(connectors.getAttachment(), "no attach.uri, no attachment");
    }

    @Test
    void metadataNamesEveryGroupForIdes() throws IOException {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertNotNull(in, "the configuration processor's metadata");
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String name : List.of("amqp.servlet.port", "amqp.servlet.request-timeout",
                "amqp.servlet.write-coalescing", "amqp.servlet.connection-properties",
                "amqp.servlet.limits.max-connections", "amqp.servlet.limits.max-connections-per-address",
                "amqp.servlet.limits.max-handshakes-per-address",
                "amqp.servlet.limits.max-failed-logins-per-address", "amqp.servlet.limits.failed-logins-window",
                "amqp.servlet.limits.max-buffered-bytes", "amqp.servlet.limits.max-links-per-connection",
                "amqp.servlet.limits.max-unsettled-sent-deliveries", "amqp.servlet.limits.min-peer-idle-timeout",
                "amqp.servlet.limits.max-link-bytes-per-connection", "amqp.servlet.limits.partial-frame-timeout",
                "amqp.servlet.limits.max-decode-depth", "amqp.servlet.limits.max-decode-elements",
                "amqp.servlet.sasl.plain", "amqp.servlet.ssl.bundle",
                "amqp.servlet.ssl.client-auth", "amqp.servlet.attach.uri", "amqp.servlet.attach.credit",
                "amqp.servlet.attach.max-reconnect-delay")) {
            assertTrue(metadata.contains("\"name\": \"" + name + "\""), name);
        }
        assertTrue(metadata.contains("The AMQP listener's port"), "descriptions from the fields' javadoc");
    }
}
