package io.amqpservlet.protocol.codec;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link AmqpReader#nextInt()} reads what next() then getInt() read, with the same state and errors. */
class NextIntTest {
    @Test
    void readsEveryIntegerEncodingInAListAsNextThenGetIntDo() {
        AmqpWriter w = new AmqpWriter();
        w.startList();
        w.writeInt(0);          // smallint
        w.writeInt(-5);         // smallint
        w.writeInt(1000);       // int
        w.writeInt(-70000);     // int
        w.writeUInt(0);         // uint0
        w.writeUInt(200);       // smalluint
        w.writeUInt(0xFFFFFFF0); // uint
        w.writeLong(3);         // smalllong
        w.writeULong(9);        // smallulong
        w.writeUShort(65535);   // ushort
        w.writeInt(7);          // smallint in the list's last bytes
        w.endList();
        byte[] b = w.toByteArray();

        AmqpReader expected = new AmqpReader().wrap(b, 0, b.length);
        AmqpReader actual = new AmqpReader().wrap(b, 0, b.length);
        expected.next();
        expected.enter();
        actual.next();
        actual.enter();
        while (expected.hasNext()) {
            expected.next();
            assertEquals(expected.getInt(), actual.nextInt());
            assertEquals(expected.formatCode(), actual.formatCode());
            assertEquals(expected.valueStart(), actual.valueStart());
            assertEquals(expected.valueOffset(), actual.valueOffset());
            assertEquals(expected.valueEnd(), actual.valueEnd());
            assertEquals(expected.position(), actual.position());
            assertEquals(expected.remaining(), actual.remaining());
        }
        actual.exit();
        assertEquals(0, actual.depth());
    }

    @Test
    void readsAtTopLevelAndInAnArray() {
        AmqpWriter w = new AmqpWriter();
        w.writeInt(123456);
        w.startArray(FormatCode.INT);
        w.writeInt(-1);
        w.writeInt(2);
        w.endArray();
        byte[] b = w.toByteArray();
        AmqpReader r = new AmqpReader().wrap(b, 0, b.length);
        assertEquals(123456, r.nextInt());
        r.next();
        r.enter();
        assertEquals(-1, r.nextInt());
        assertEquals(2, r.nextInt());
        r.exit();
    }

    @Test
    void rejectsANonIntegerAndAnOverrunLikeNext() {
        AmqpWriter w = new AmqpWriter();
        w.startList();
        w.writeString("x");
        w.endList();
        byte[] b = w.toByteArray();
        AmqpReader r = new AmqpReader().wrap(b, 0, b.length);
        r.next();
        r.enter();
        assertThrows(UnexpectedTypeException.class, r::nextInt);
        assertThrows(IllegalStateException.class, r::nextInt, "no more elements");

        // list8 of count 2 whose size holds only one int: 0xc0, size 6, count 2, int 1.
        byte[] bad = {(byte) 0xc0, 6, 2, 0x71, 0, 0, 0, 1};
        r.wrap(bad, 0, bad.length);
        r.next();
        r.enter();
        assertEquals(1, r.nextInt());
        assertThrows(InvalidEncodingException.class, r::nextInt);
    }
}
