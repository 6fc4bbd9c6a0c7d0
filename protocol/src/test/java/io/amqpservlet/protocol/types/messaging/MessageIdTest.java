package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageIdTest {
    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpReader reader = new AmqpReader();

    /** Writes {@code id}, checks the format code, reads it into a fresh holder. */
    private MessageId roundTrip(MessageId id, int expectedCode) {
        writer.clear();
        id.write(writer);
        reader.wrap(writer.array(), 0, writer.length());
        assertEquals(expectedCode, reader.next(), "written with the type it holds");
        MessageId back = new MessageId().setString("stale").read(reader);
        assertTrue(back.contentEquals(id));
        return back;
    }

    @Test
    void ulongKeepsItsTypeAndUnsignedValue() {
        MessageId back = roundTrip(new MessageId().setULong(-1L), FormatCode.ULONG);
        assertEquals(MessageId.Kind.ULONG, back.kind());
        assertEquals("18446744073709551615", back.toString());
        assertEquals(MessageId.Kind.ULONG, roundTrip(new MessageId().setULong(0), FormatCode.ULONG0).kind());
    }

    @Test
    void uuidKeepsBothHalves() {
        UUID u = UUID.fromString("5b7c1d2e-0000-4000-8000-000000000001");
        MessageId back = roundTrip(new MessageId().setUuid(u.getMostSignificantBits(), u.getLeastSignificantBits()), FormatCode.UUID);
        assertEquals(u.getMostSignificantBits(), back.uuidMostSignificantBits());
        assertEquals(u.toString(), back.toString());
    }

    @Test
    void binaryKeepsItsBytes() {
        MessageId back = roundTrip(new MessageId().setBinary(new byte[] {0, (byte) 0xFF, 7}, 0, 3), FormatCode.VBIN8);
        assertEquals(MessageId.Kind.BINARY, back.kind());
        assertArrayEquals(new byte[] {0, (byte) 0xFF, 7}, back.bytes().toByteArray());
        assertEquals("00ff07", back.toString());
    }

    @Test
    void stringKeepsItsUtf8() {
        MessageId back = roundTrip(new MessageId().setString("req-é-1"), FormatCode.STR8);
        assertEquals(MessageId.Kind.STRING, back.kind());
        assertEquals("req-é-1", back.toString());
    }

    @Test
    void nullWritesNullAndReadsAsNull() {
        MessageId back = roundTrip(new MessageId(), FormatCode.NULL);
        assertTrue(back.isNull());
    }

    @Test
    void sameBytesOfDifferentKindsAreDifferentIds() {
        byte[] b = "x".getBytes();
        assertFalse(new MessageId().setBinary(b, 0, 1).contentEquals(new MessageId().setString("x")));
        assertFalse(new MessageId().setULong(1).contentEquals(new MessageId().setUuid(0, 1)));
    }

    @Test
    void setCopiesKindAndValue() {
        MessageId a = new MessageId().setUuid(3, 4);
        MessageId b = new MessageId().setString("other").set(a);
        assertTrue(b.contentEquals(a));
        assertTrue(b.bytes().isNull());
    }

    @Test
    void rejectsASymbolAsMessageId() {
        writer.clear();
        writer.writeSymbol("id");
        reader.wrap(writer.array(), 0, writer.length()).next();
        assertThrows(UnexpectedTypeException.class, () -> new MessageId().read(reader));
    }

    @Test
    void rejectsWrongAccessorForKind() {
        assertThrows(IllegalStateException.class, () -> new MessageId().setString("a").ulongValue());
    }
}
