package io.amqpservlet.jetty.internal.mapping;

import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageView;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seeds of {@link TypedBodyFuzzTest}: typed request bodies as proton-j 0.35.0 encodes them (the codec of Qpid JMS,
 * whose {@code MapMessage} is an amqp-value map), and JSON answers as servlets write them. Each request body must map
 * to the JSON the test names, so the seeds are typed bodies the mapper serves, not ones it refuses.
 *
 * <p>With {@code -Dfuzz.seeds.write=true} they are written into {@code TypedBodyFuzzTestInputs/<method>/}
 * (docs/fuzzing.md): for the request target, a first byte that picks the section (even amqp-value, odd
 * amqp-sequence) and the bytes after the section's descriptor; for the response target, the JSON text.
 */
class TypedBodySeedRecordingTest {
    private static final String INPUTS =
            "src/test/resources/io/amqpservlet/jetty/internal/mapping/TypedBodyFuzzTestInputs/";

    @Test
    void aJmsMapMessageBodyReachesTheServletAsJson() throws IOException {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", "orders");
        map.put("count", 3);
        map.put("price", 9.5);
        map.put("active", true);
        map.put("id", 1234567890123L);
        map.put("code", (short) 7);
        map.put("payload", new Binary("xyz".getBytes(StandardCharsets.US_ASCII)));
        request("qpid-jms-map-message", new AmqpValue(map),
                "{\"name\":\"orders\",\"count\":3,\"price\":9.5,\"active\":true,\"id\":1234567890123,\"code\":7,"
                        + "\"payload\":{\"$binary\":\"eHl6\"}}");
    }

    @Test
    void aSequenceWithTypedElementsReachesTheServletAsAJsonArray() throws IOException {
        request("proton-j-amqp-sequence", new AmqpSequence(List.of("a", 1L, UnsignedInteger.valueOf(5),
                        Symbol.valueOf("amqp:x"), UUID.fromString("01234567-89ab-cdef-0123-456789abcdef"))),
                "[\"a\",1,5,\"amqp:x\",{\"$uuid\":\"01234567-89ab-cdef-0123-456789abcdef\"}]");
    }

    @Test
    void aNestedMapWithSymbolKeysTimestampsAndArraysReachesTheServletAsJson() throws IOException {
        Map<Object, Object> inner = new LinkedHashMap<>();
        inner.put(Symbol.valueOf("x-opt-kind"), "queue");
        inner.put("replicas", new String[] {"rabbit@a", "rabbit@b"});
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("created", new Date(1_700_000_000_123L));
        map.put("messages", UnsignedLong.valueOf("18446744073709551615"));
        map.put("ratio", 0.25f);
        map.put("arguments", inner);
        map.put("nothing", null);
        request("proton-j-nested-map", new AmqpValue(map),
                "{\"created\":{\"$timestamp\":1700000000123},\"messages\":18446744073709551615,\"ratio\":0.25,"
                        + "\"arguments\":{\"x-opt-kind\":\"queue\",\"replicas\":[\"rabbit@a\",\"rabbit@b\"]},"
                        + "\"nothing\":null}");
    }

    @Test
    void jsonAnswersAsServletsWriteThem() throws IOException {
        response("rabbitmq-queue", "{\"name\":\"orders\",\"vhost\":\"/\",\"durable\":true,\"messages\":0,"
                + "\"consumers\":2,\"arguments\":{\"x-queue-type\":\"quorum\"},\"memory\":1.5e3}");
        response("array-of-objects", "[{\"id\":1,\"tags\":[]},{\"id\":2,\"tags\":[\"a\",\"b\"]}, null, -0.0]\n");
        response("tagged-values", "{\"$map\":[[{\"$symbol\":\"k\"},{\"$ulong\":18446744073709551615}],"
                + "[1,{\"$array\":[\"uint\",1,2]}]]}");
        response("not-json", "ok");
    }

    private static void request(String name, Object body, String json) throws IOException {
        Message message = Message.Factory.create();
        Properties properties = new Properties();
        properties.setMessageId("seed");
        properties.setTo("/fuzz");
        properties.setSubject("POST");
        properties.setReplyTo("/replies");
        message.setProperties(properties);
        message.setBody(body instanceof AmqpSequence s ? s : (AmqpValue) body);
        byte[] buffer = new byte[4096];
        int length = message.encode(buffer, 0, buffer.length);
        MessageView view = new MessageView().wrap(buffer, 0, length);
        boolean sequence = view.body().kind() == MessageSection.AMQP_SEQUENCE;
        int sectionStart = view.body().sectionStart(0);
        byte[] seed = new byte[1 + length - sectionStart - 3];
        seed[0] = (byte) (sequence ? 1 : 0);
        System.arraycopy(buffer, sectionStart + 3, seed, 1, seed.length - 1); // after 0x00 0x53 0x77 (or 0x76)

        MappedRequest mapped = new MappedRequest();
        new RequestMapper(false).map(view, TypedBodyFuzzTest.link(), "fuzz-host", "server", 8192, 0L,
                false, mapped);
        assertTrue(mapped.jsonBody(), name);
        assertEquals(json, new String(mapped.body(), StandardCharsets.UTF_8), name);
        seed("mapsAnyAmqpValueBodyToJsonAndBack/" + name, seed);
    }

    private static void response(String name, String json) throws IOException {
        seed("encodesAnyJsonResponseAsAnAmqpValue/" + name, json.getBytes(StandardCharsets.UTF_8));
    }

    private static void seed(String path, byte[] bytes) throws IOException {
        if (!Boolean.getBoolean("fuzz.seeds.write")) {
            return;
        }
        Path file = Path.of(INPUTS, path);
        Files.createDirectories(file.getParent());
        Files.write(file, Arrays.copyOf(bytes, bytes.length));
    }
}
