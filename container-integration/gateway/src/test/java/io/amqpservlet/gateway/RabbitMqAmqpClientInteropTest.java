package io.amqpservlet.gateway;

import com.rabbitmq.client.amqp.AmqpException;
import com.rabbitmq.client.amqp.Connection;
import com.rabbitmq.client.amqp.ConnectionSettings;
import com.rabbitmq.client.amqp.Environment;
import com.rabbitmq.client.amqp.Management;
import com.rabbitmq.client.amqp.impl.AmqpEnvironmentBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RabbitMQ 4's own AMQP 1.0 client ({@code com.rabbitmq.client:amqp-client}), unchanged, drives its management API
 * against the gateway's demo app in-process: a link pair at {@code /management}, {@code reply-to} {@code $me}, UUID
 * message-ids, amqp-value maps both ways. The gateway offers the open properties the client checks.
 */
@Timeout(120)
class RabbitMqAmqpClientInteropTest {
    private static Gateway gateway;
    private static Environment environment;
    private static Connection connection;

    @BeforeAll
    static void start() throws Exception {
        gateway = new Gateway(GatewayOptions.parse(new String[] {"--amqp-port", "0", "--http-port", "0",
            "--bind", "127.0.0.1", "--connection-property", "product=RabbitMQ",
            "--connection-property", "version=4.0.0", "--connection-property", "node=amqp-servlet"}));
        gateway.start();
        environment = new AmqpEnvironmentBuilder().connectionSettings().host("127.0.0.1").port(gateway.amqpPort())
                // The gateway has no users: it serves a client that authenticates anonymously.
                .saslMechanism(ConnectionSettings.SASL_MECHANISM_ANONYMOUS).environmentBuilder().build();
        connection = environment.connectionBuilder().build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (environment != null) {
            environment.close();
        }
        if (gateway != null) {
            gateway.stop();
        }
    }

    @Test
    void declaresInspectsBindsPurgesAndDeletesThroughTheManagementApi() {
        Management management = connection.management();
        // Every byte but the unreserved ones goes percent-encoded in the path (an encoded "/" the container refuses,
        // Servlet 6.1 §3.5.2).
        String queue = "orders q \u00e9;1=x";
        Management.QueueInfo declared = management.queue(queue).exclusive(false).autoDelete(false)
                .messageTtl(java.time.Duration.ofSeconds(60)).declare();
        assertEquals(queue, declared.name());
        assertTrue(declared.durable());
        assertFalse(declared.autoDelete());
        assertEquals(Management.QueueType.CLASSIC, declared.type());
        assertEquals(60_000L, ((Number) declared.arguments().get("x-message-ttl")).longValue());

        // Declared again with the same properties: 200, the same queue.
        assertEquals(queue, management.queue(queue).exclusive(false).autoDelete(false)
                .messageTtl(java.time.Duration.ofSeconds(60)).declare().name());
        // With other properties: 409, which the client reports as an error.
        assertThrows(AmqpException.class, () -> management.queue(queue).exclusive(false).autoDelete(true)
                .messageTtl(java.time.Duration.ofSeconds(60)).declare());

        Management.QueueInfo info = management.queueInfo(queue);
        assertEquals(queue, info.name());
        assertEquals(0, info.messageCount());
        assertEquals(0, info.consumerCount());
        assertEquals("amqp-servlet", info.leader());
        assertEquals(List.of("amqp-servlet"), info.members());
        assertEquals(Map.of("x-message-ttl", 60_000L), Map.of("x-message-ttl",
                ((Number) info.arguments().get("x-message-ttl")).longValue()));

        management.exchange("orders-x").type(Management.ExchangeType.TOPIC).declare();
        management.binding().sourceExchange("orders-x").destinationQueue(queue).key("orders.*").bind();
        management.unbind().sourceExchange("orders-x").destinationQueue(queue).key("orders.*").unbind();
        // A binding with arguments is unbound by its location, which the client looks up with GET /bindings?...
        management.binding().sourceExchange("orders-x").destinationQueue(queue).key("k").argument("x-match", "all")
                .bind();
        management.unbind().sourceExchange("orders-x").destinationQueue(queue).key("k").argument("x-match", "all")
                .unbind();
        assertEquals(0, management.queuePurge(queue).messageCount());

        management.queueDelete(queue);
        AmqpException gone = assertThrows(AmqpException.class, () -> management.queueInfo(queue));
        assertTrue(gone instanceof AmqpException.AmqpEntityDoesNotExistException, gone.toString());
        management.exchangeDelete("orders-x");
        // A binding to a deleted exchange: 404.
        assertThrows(AmqpException.class, () -> management.binding().sourceExchange("orders-x")
                .destinationQueue("other").key("k").bind());
    }

    @Test
    void aQueueWithoutANameGetsOneTheClientMakesUp() {
        Management management = connection.management();
        Management.QueueInfo info = management.queue().exclusive(true).autoDelete(true).declare();
        assertFalse(info.name().isEmpty());
        assertTrue(info.exclusive());
        assertEquals(info.name(), management.queueInfo(info.name()).name());
        management.queueDelete(info.name());
    }
}
