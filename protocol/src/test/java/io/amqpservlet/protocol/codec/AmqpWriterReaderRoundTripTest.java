package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AmqpWriterReaderRoundTripTest {
    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpReader reader = new AmqpReader();

    private AmqpReader read() {
        return reader.wrap(writer.array(), writer.start(), writer.length());
    }

    @Test
    void listOfIntsAndUuidUsesSmallestEncodingsAndBackfillsList8() {
        writer.startList();
        for (int i = 0; i < 10; i++) {
            writer.writeInt(i * 1000);
        }
        writer.writeUuid(0x1122334455667788L, 0x99AABBCCDDEEFF00L);
        writer.endList();

        byte[] out = writer.toByteArray();
        assertEquals(FormatCode.LIST8, out[0] & 0xFF);
        assertEquals(out.length - 2, out[1] & 0xFF, "size counts the count byte and the elements");
        assertEquals(11, out[2] & 0xFF);
        assertEquals(FormatCode.SMALLINT, out[3] & 0xFF, "0 fits smallint");

        read().next();
        assertEquals(AmqpType.LIST, reader.type());
        reader.enter();
        long sum = 0;
        for (int i = 0; i < 10; i++) {
            reader.next();
            sum += reader.getInt();
        }
        reader.next();
        assertEquals(0x1122334455667788L, reader.getUuidMostSignificantBits());
        assertEquals(0x99AABBCCDDEEFF00L, reader.getUuidLeastSignificantBits());
        assertFalse(reader.hasNext());
        reader.exit();
        assertEquals(45000, sum);
        assertFalse(reader.hasNext());
    }

    @Test
    void emptyListBecomesList0AndLargeListWidensToList32InPlace() {
        writer.startList();
        writer.startList();
        writer.endList();
        writer.startList();
        for (int i = 0; i < 300; i++) {
            writer.writeNull();
        }
        writer.endList();
        writer.writeString("after");
        writer.endList();

        read().next();
        assertEquals(FormatCode.LIST32, reader.formatCode(), "the outer list holds more than 255 bytes");
        reader.enter();
        assertEquals(FormatCode.LIST0, reader.next());
        assertEquals(0, reader.count());
        assertEquals(FormatCode.LIST32, reader.next());
        assertEquals(300, reader.count());
        reader.next();
        assertEquals("after", reader.getString());
        reader.exit();
    }

    @Test
    void nestedWideningKeepsOuterBackfillCorrect() {
        writer.startMap();
        writer.writeSymbol(Symbol.of("k"));
        writer.startList();
        byte[] big = new byte[400];
        big[399] = 7;
        writer.writeBinary(big);
        writer.endList();
        writer.endMap();

        read().next();
        assertEquals(FormatCode.MAP32, reader.formatCode());
        reader.enter();
        reader.next();
        assertTrue(reader.contentEquals(Symbol.of("k")));
        reader.next();
        reader.enter();
        reader.next();
        assertEquals(FormatCode.VBIN32, reader.formatCode());
        assertEquals(400, reader.valueLength());
        assertEquals(7, reader.buffer()[reader.valueOffset() + 399]);
        reader.exit();
        reader.exit();
    }

    @Test
    void describedValuesAndArrays() {
        writer.writeDescriptor(0x10L);
        writer.startList();
        writer.writeString("container");
        writer.startArray(FormatCode.SYM8);
        writer.writeSymbol(Symbol.of("ANONYMOUS-RELAY"));
        writer.writeSymbol(Symbol.of("x"));
        writer.endArray();
        writer.endList();
        writer.startDescribedArray(Symbol.of("int-array"), FormatCode.INT);
        for (int i = 0; i < 10; i++) {
            writer.writeInt(i);
        }
        writer.endArray();

        read().next();
        assertEquals(AmqpType.DESCRIBED, reader.type());
        assertEquals(0x10L, reader.descriptorCode());
        reader.enter();
        reader.next(); // descriptor
        assertEquals(0x10L, reader.getLong());
        reader.next();
        reader.enter();
        reader.next();
        assertEquals("container", reader.getString());
        reader.next();
        assertEquals(FormatCode.SYM8, reader.arrayElementCode());
        assertEquals(2, reader.count());
        reader.enter();
        reader.next();
        assertEquals("ANONYMOUS-RELAY", reader.getString());
        reader.next();
        assertEquals("x", reader.getString());
        reader.exit();
        reader.exit();
        reader.exit();

        reader.next();
        assertEquals(AmqpType.ARRAY, reader.type());
        assertTrue(reader.isDescribedArray());
        assertEquals(10, reader.count());
        reader.enter();
        int sum = 0;
        while (reader.hasNext()) {
            reader.next();
            assertEquals(FormatCode.INT, reader.formatCode());
            sum += reader.getInt();
        }
        reader.exit();
        assertEquals(45, sum);
    }

    @Test
    void arraysOfListsAndArrays() {
        writer.startArray(FormatCode.LIST8);
        writer.startList();
        writer.writeInt(1);
        writer.endList();
        writer.startList();
        writer.endList();
        writer.endArray();
        writer.startArray(FormatCode.ARRAY8);
        writer.startArray(FormatCode.UBYTE);
        writer.writeUByte(200);
        writer.endArray();
        writer.endArray();

        read().next();
        reader.enter();
        reader.next();
        assertEquals(1, reader.count());
        reader.enter();
        reader.next();
        assertEquals(1, reader.getInt());
        reader.exit();
        reader.next();
        assertEquals(0, reader.count());
        reader.exit();
        reader.next();
        reader.enter();
        reader.next();
        assertEquals(FormatCode.UBYTE, reader.arrayElementCode());
        reader.enter();
        reader.next();
        assertEquals(200, reader.getInt());
        reader.exit();
        reader.exit();
        assertFalse(reader.hasNext());
    }

    @Test
    void truncatedInputIsToldApartFromInvalidInput() {
        writer.startList();
        writer.writeString("hello");
        writer.endList();
        byte[] whole = writer.toByteArray();

        assertThrows(TruncatedEncodingException.class, () -> reader.wrap(whole, 0, whole.length - 1).next());

        byte[] lying = whole.clone();
        lying[4] = 50; // the string claims more bytes than its list holds
        reader.wrap(lying, 0, lying.length).next();
        reader.enter();
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class, reader::next);
        assertTrue(e.getMessage().contains("str8"), e.getMessage());
        assertEquals(3, e.offset());
    }

    @Test
    void writesIntoCallersArray() {
        byte[] target = new byte[8];
        writer.wrap(target, 2, 6);
        writer.writeUInt(0x01020304);
        assertArrayEquals(new byte[] {0, 0, 0x70, 1, 2, 3, 4, 0}, target);
        assertThrows(java.nio.BufferOverflowException.class, () -> writer.writeLong(Long.MAX_VALUE));
    }
}
