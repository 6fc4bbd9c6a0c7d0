package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reader's one-step ways into described values: nextDescribed, unwrapDescribed, enterDescribedList. */
class DescribedStepTest {
    private static final Symbol TRANSFER = Symbol.of("amqp:transfer:list");

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    // AMQP 1.0 §1.2: 0x00, descriptor smallulong 0x14, list8 of size 3 count 2: smalluint 7, uint0.
    private static final byte[] NUMERIC = bytes(0x00, 0x53, 0x14, 0xc0, 0x04, 0x02, 0x52, 0x07, 0x43);

    @Test
    void entersADescribedListWithASmallUlongDescriptorInOneCall() {
        AmqpReader r = new AmqpReader().wrap(NUMERIC, 0, NUMERIC.length);
        assertEquals(0x14, r.enterDescribedList());
        assertEquals(1, r.depth());
        r.nextField();
        assertEquals(7, r.getInt());
        r.nextField();
        assertEquals(0, r.getInt());
        assertTrue(r.nextField() == FormatCode.NULL, "past the last field reads as null");
        r.exit();
        assertEquals(0, r.depth());
        assertFalse(r.hasNext());
    }

    @Test
    void nextDescribedLeavesTheReaderOnTheDescribedValueAtTheSameDepth() {
        // A list holding two described values: a described binary and a described list.
        byte[] b = bytes(0xc0, 0x0b, 0x02,
                0x00, 0x53, 0x75, 0xa0, 0x01, 0x41,
                0x00, 0x53, 0x77, 0x45);
        AmqpReader r = new AmqpReader().wrap(b, 0, b.length);
        r.next();
        r.enter();
        assertEquals(0x75, r.nextDescribed());
        assertEquals(FormatCode.VBIN8, r.formatCode());
        assertEquals(1, r.valueLength());
        assertEquals(1, r.depth());
        assertEquals(0x77, r.nextDescribed());
        assertEquals(FormatCode.LIST0, r.formatCode());
        assertFalse(r.hasNext());
        r.exit();
        assertFalse(r.hasNext());
    }

    @Test
    void readsAUlongDescriptorAndASymbolicOneThroughTheGeneralPath() {
        byte[] ulong = bytes(0x00, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x14, 0x45);
        AmqpReader r = new AmqpReader().wrap(ulong, 0, ulong.length);
        assertEquals(0x14, r.enterDescribedList());
        r.exit();

        byte[] name = TRANSFER.bytes();
        byte[] symbolic = new byte[name.length + 4];
        symbolic[0] = 0x00;
        symbolic[1] = (byte) FormatCode.SYM8;
        symbolic[2] = (byte) name.length;
        System.arraycopy(name, 0, symbolic, 3, name.length);
        symbolic[name.length + 3] = 0x45;
        r.wrap(symbolic, 0, symbolic.length);
        assertEquals(-1, r.enterDescribedList());
        assertTrue(r.describedBy(TRANSFER));
        assertFalse(r.describedBy(Symbol.of("amqp:open:list")));
        r.exit();
    }

    @Test
    void unwrapsTheCurrentDescribedValue() {
        AmqpReader r = new AmqpReader().wrap(NUMERIC, 0, NUMERIC.length);
        r.next();
        assertEquals(0x14, r.unwrapDescribed());
        assertEquals(FormatCode.LIST8, r.formatCode());
        assertEquals(2, r.count());
        assertEquals(NUMERIC.length, r.valueEnd());
        assertThrows(IllegalStateException.class, r::unwrapDescribed);
    }

    @Test
    void returnsTheSharedDescriptorOfAnArrayOfDescribedValues() {
        // array8 of two empty lists sharing descriptor smallulong 0x24 (accepted), as list8 elements (list0
        // cannot be an array element code): each is size 1, count 0.
        byte[] b = bytes(0xe0, 0x09, 0x02, 0x00, 0x53, 0x24, 0xc0, 0x01, 0x00, 0x01, 0x00);
        AmqpReader r = new AmqpReader().wrap(b, 0, b.length);
        r.next();
        r.enter();
        assertEquals(0x24, r.nextDescribed());
        assertEquals(FormatCode.LIST8, r.formatCode());
        assertEquals(0x24, r.nextDescribed());
        r.exit();
    }

    @Test
    void rejectsAValueThatIsNotDescribedOrNotAList() {
        byte[] plain = bytes(0x45);
        AmqpReader r = new AmqpReader().wrap(plain, 0, plain.length);
        assertThrows(UnexpectedTypeException.class, r::nextDescribed);
        byte[] binary = bytes(0x00, 0x53, 0x75, 0xa0, 0x00);
        r.wrap(binary, 0, binary.length);
        assertThrows(UnexpectedTypeException.class, r::enterDescribedList);
    }

    @Test
    void reportsATruncatedDescribedValue() {
        // The list8 claims 4 bytes, only 2 follow.
        byte[] b = bytes(0x00, 0x53, 0x14, 0xc0, 0x04, 0x02, 0x52);
        AmqpReader r = new AmqpReader().wrap(b, 0, b.length);
        assertThrows(TruncatedEncodingException.class, r::enterDescribedList);
        byte[] shortDescriptor = bytes(0x00, 0x53);
        r.wrap(shortDescriptor, 0, shortDescriptor.length);
        assertThrows(TruncatedEncodingException.class, r::nextDescribed);
    }
}
