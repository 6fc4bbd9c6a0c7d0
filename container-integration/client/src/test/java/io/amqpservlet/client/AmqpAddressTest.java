package io.amqpservlet.client;

import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The URL convention the client shares with attach mode's broker URIs: the path names the node without its first
 * slash (as Proton and Qpid read it), the request-target is what a server makes of that node, plus the query.
 */
class AmqpAddressTest {
    private static AmqpAddress of(String url) {
        return AmqpAddress.of(URI.create(url));
    }

    @Test
    void thePathNamesTheNodeWithoutItsFirstSlash() {
        assertEquals(new AmqpAddress("orders", "/orders"), of("amqp://broker:5672/orders"));
        assertEquals(new AmqpAddress("queue/orders", "/queue/orders"), of("amqps://broker/queue/orders"));
    }

    @Test
    void aNodeThatStartsWithASlashIsWrittenWithTwoOrEscaped() {
        assertEquals(new AmqpAddress("/orders", "/orders"), of("amqp://broker//orders"));
        assertEquals(new AmqpAddress("/orders", "/orders"), of("amqp://broker/%2Forders"));
        assertEquals(new AmqpAddress("/orders", "/orders"), of("amqp://broker/%2forders"));
    }

    @Test
    void theNodeIsDecodedAndTheTargetKeepsItsEscapes() {
        assertEquals(new AmqpAddress("orders in/a b", "/orders%20in%2Fa%20b"), of("amqp://h/orders%20in%2Fa%20b"));
    }

    @Test
    void theQueryGoesToTheTargetOnly() {
        assertEquals(new AmqpAddress("echo", "/echo?a=b&c=%20d"), of("amqp://h/echo?a=b&c=%20d"));
    }

    @Test
    void withoutAPathThereIsNoNodeAndTheTargetIsTheRoot() {
        assertEquals(new AmqpAddress(null, "/"), of("amqp://h:5672"));
        assertEquals(new AmqpAddress(null, "/"), of("amqp://h/"));
        assertEquals(new AmqpAddress(null, "/?x=1"), of("amqp://h/?x=1"));
    }

    @Test
    void aTargetGivenApartKeepsTheUrlsNode() {
        assertEquals(new AmqpAddress("orders", "/orders/42?expand=1"),
                AmqpAddress.of(URI.create("amqp://h/orders?ignored"), "/orders/42?expand=1"));
    }
}
