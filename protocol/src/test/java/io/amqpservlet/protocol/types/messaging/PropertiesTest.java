package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.types.Descriptors;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PropertiesTest {
    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpReader reader = new AmqpReader();

    private Properties roundTrip(Properties p) {
        writer.clear();
        p.encode(writer);
        reader.wrap(writer.array(), 0, writer.length()).next();
        Properties back = new Properties();
        back.subject().set("stale"); // decode must overwrite it
        back.decode(reader);
        assertFalse(reader.hasNext());
        return back;
    }

    private int encodedFieldCount(Properties p) {
        writer.clear();
        p.encode(writer);
        reader.wrap(writer.array(), 0, writer.length()).next();
        reader.enter();
        reader.next();
        reader.next();
        return reader.count();
    }

    @Test
    void roundTripsEveryField() {
        Properties p = new Properties();
        p.messageId().setUuid(1, 2);
        p.userId().set(new byte[] {1, 2, 3}, 0, 3);
        p.to().set("/orders/42");
        p.subject().set("POST");
        p.replyTo().set("reply-é");
        p.correlationId().setULong(77);
        p.contentType().set("application/json");
        p.contentEncoding().set("gzip");
        p.absoluteExpiryTime(1_700_000_000_123L);
        p.creationTime(1_600_000_000_000L);
        p.groupId().set("g");
        p.groupSequence(0xFFFFFFFFL);
        p.replyToGroupId().set("rg");

        assertEquals(Properties.FIELD_COUNT, encodedFieldCount(p));
        Properties b = roundTrip(p);
        assertEquals(MessageId.Kind.UUID, b.messageId().kind());
        assertEquals(2, b.messageId().uuidLeastSignificantBits());
        assertArrayEquals(new byte[] {1, 2, 3}, b.userId().toByteArray());
        assertEquals("/orders/42", b.to().toString());
        assertEquals("POST", b.subject().toString());
        assertEquals("reply-é", b.replyTo().toString());
        assertEquals(77, b.correlationId().ulongValue());
        assertEquals("application/json", b.contentType().toString());
        assertEquals("gzip", b.contentEncoding().toString());
        assertEquals(1_700_000_000_123L, b.absoluteExpiryTime());
        assertEquals(1_600_000_000_000L, b.creationTime());
        assertEquals("g", b.groupId().toString());
        assertEquals(0xFFFFFFFFL, b.groupSequence());
        assertEquals("rg", b.replyToGroupId().toString());
    }

    @Test
    void emptyPropertiesAreAnEmptyListAndDecodeToNulls() {
        writer.clear();
        new Properties().encode(writer);
        assertArrayEquals(new byte[] {0x00, 0x53, 0x73, 0x45}, writer.toByteArray());
        Properties b = roundTrip(new Properties());
        assertTrue(b.messageId().isNull());
        assertTrue(b.subject().isNull());
        assertFalse(b.hasCreationTime());
        assertFalse(b.hasGroupSequence());
    }

    @Test
    void omitsTrailingNullsButKeepsInnerOnes() {
        Properties p = new Properties();
        p.subject().set("GET");
        assertEquals(Properties.SUBJECT + 1, encodedFieldCount(p));
        Properties b = roundTrip(p);
        assertTrue(b.messageId().isNull());
        assertTrue(b.to().isNull());
        assertEquals("GET", b.subject().toString());
        assertTrue(b.replyTo().isNull());
    }

    @Test
    void zeroTimestampsAndSequenceAreValuesNotNulls() {
        Properties p = new Properties().creationTime(0).groupSequence(0);
        Properties b = roundTrip(p);
        assertTrue(b.hasCreationTime());
        assertEquals(0, b.creationTime());
        assertFalse(b.hasAbsoluteExpiryTime());
        assertEquals(0, b.groupSequence());
    }

    @Test
    void decodesAListWithFewerFieldsThanTheSpecDefines() {
        writer.clear();
        writer.writeDescriptor(Descriptors.PROPERTIES);
        writer.startList();
        writer.writeULong(5);
        writer.endList();
        reader.wrap(writer.array(), 0, writer.length()).next();
        Properties b = new Properties();
        b.to().set("stale");
        b.decode(reader);
        assertEquals(5, b.messageId().ulongValue());
        assertTrue(b.to().isNull());
        assertFalse(b.hasGroupSequence());
    }
}
