package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeaderTest {
    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpReader reader = new AmqpReader();

    private Header roundTrip(Header h) {
        writer.clear();
        h.encode(writer);
        reader.wrap(writer.array(), 0, writer.length()).next();
        Header back = new Header().durable(true).priority(9).ttlMillis(5).deliveryCount(7); // overwritten by decode
        back.decode(reader);
        assertFalse(reader.hasNext(), "decode consumes the whole section");
        return back;
    }

    @Test
    void roundTripsEveryField() {
        Header h = new Header().durable(true).priority(9).ttlMillis(0xFFFFFFFFL).firstAcquirer(true).deliveryCount(0x80000001L);
        Header back = roundTrip(h);
        assertTrue(back.durable());
        assertEquals(9, back.priority());
        assertEquals(0xFFFFFFFFL, back.ttlMillis());
        assertTrue(back.firstAcquirer());
        assertEquals(0x80000001L, back.deliveryCount());
    }

    @Test
    void allDefaultHeaderIsAnEmptyListAndDecodesToDefaults() {
        writer.clear();
        new Header().encode(writer);
        assertArrayEquals(new byte[] {0x00, 0x53, 0x70, 0x45}, writer.toByteArray());
        Header back = roundTrip(new Header());
        assertFalse(back.durable());
        assertEquals(Header.DEFAULT_PRIORITY, back.priority());
        assertFalse(back.hasTtl());
        assertFalse(back.firstAcquirer());
        assertEquals(0, back.deliveryCount());
    }

    @Test
    void omitsTrailingDefaultFieldsAndWritesInnerDefaultsAsNull() {
        writer.clear();
        new Header().ttlMillis(1000).encode(writer);
        reader.wrap(writer.array(), 0, writer.length()).next();
        reader.enter();
        reader.next();
        reader.next();
        assertEquals(3, reader.count(), "durable, priority and ttl; first-acquirer and delivery-count omitted");
        reader.enter();
        reader.next();
        assertTrue(reader.isNull(), "durable false is written as null");
        reader.next();
        assertTrue(reader.isNull(), "priority 4 is written as null");
        reader.next();
        assertEquals(1000, reader.getLong());
    }

    @Test
    void zeroTtlIsKeptDistinctFromNoTtl() {
        assertEquals(0, roundTrip(new Header().ttlMillis(0)).ttlMillis());
        assertEquals(-1, roundTrip(new Header().ttlMillis(0).ttlMillis(-1)).ttlMillis());
    }

    @Test
    void decodesSymbolicDescriptorAndExplicitWideEncodings() {
        writer.clear();
        writer.writeDescriptor(Symbol.of("amqp:header:list"));
        writer.startList();
        writer.writeBoolean(true);
        writer.writeUByte(7);
        writer.writeUInt(0x12345678);
        writer.endList();
        reader.wrap(writer.array(), 0, writer.length()).next();
        Header h = new Header().decode(reader);
        assertTrue(h.durable());
        assertEquals(7, h.priority());
        assertEquals(0x12345678L, h.ttlMillis());
        assertFalse(h.firstAcquirer());
    }

    @Test
    void rejectsAnotherSectionsDescriptor() {
        writer.clear();
        writer.writeDescriptor(Descriptors.PROPERTIES);
        writer.startList();
        writer.endList();
        reader.wrap(writer.array(), 0, writer.length()).next();
        UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class, () -> new Header().decode(reader));
        assertTrue(e.getMessage().contains("0x73"), e.getMessage());
    }

    @Test
    void rejectsAHeaderThatIsNotAList() {
        writer.clear();
        writer.writeDescriptor(Descriptors.HEADER);
        writer.writeString("x");
        reader.wrap(writer.array(), 0, writer.length()).next();
        UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class, () -> new Header().decode(reader));
        assertTrue(e.getMessage().contains(FormatCode.name(FormatCode.STR8)), e.getMessage());
    }

    @Test
    void rejectsPriorityOutsideUbyteRange() {
        writer.clear();
        writer.writeDescriptor(Descriptors.HEADER);
        writer.startList();
        writer.writeNull();
        writer.writeUInt(300);
        writer.endList();
        reader.wrap(writer.array(), 0, writer.length()).next();
        assertThrows(UnexpectedTypeException.class, () -> new Header().decode(reader));
    }

    @Test
    void clearRestoresDefaults() {
        Header h = new Header().durable(true).priority(1).ttlMillis(3).firstAcquirer(true).deliveryCount(2).clear();
        assertFalse(h.durable());
        assertEquals(4, h.priority());
        assertEquals(-1, h.ttlMillis());
        assertFalse(h.firstAcquirer());
        assertEquals(0, h.deliveryCount());
    }
}
