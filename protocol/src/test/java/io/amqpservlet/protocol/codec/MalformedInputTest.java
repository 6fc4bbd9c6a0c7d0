package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bytes that are not a legal encoding: each fault is reported by its own DecodeException subclass, with the
 * offset where it was found and a message that says what is wrong, and never by an exception of the JDK.
 */
class MalformedInputTest {
    private final AmqpReader reader = new AmqpReader();

    private static byte[] hex(String h) {
        return HexFormat.of().parseHex(h.replace(" ", ""));
    }

    /** Walks every value in {@code h} with the scanner, reading every scalar with its getter. */
    private static Executable walk(String h) {
        return walk(h, DecoderLimits.DEFAULT);
    }

    private static Executable walk(String h, DecoderLimits limits) {
        byte[] b = hex(h);
        return () -> new AmqpScanner(new AmqpReader(limits)).scan(b, 0, b.length, new ValueCollector());
    }

    private static <T extends DecodeException> T fails(Class<T> type, int offset, String what, Executable e) {
        T x = assertThrows(type, e);
        assertEquals(offset, x.offset(), x.getMessage());
        assertTrue(x.getMessage().contains(what), x.getMessage());
        assertTrue(x.getMessage().contains("at offset " + offset), x.getMessage());
        return x;
    }

    private static byte[] complexValue() {
        AmqpWriter w = new AmqpWriter();
        w.writeDescriptor(Symbol.of("test:complex"));
        w.startList();
        w.writeString("h\u00e9llo \ud83d\ude00");
        w.startMap();
        w.writeSymbol("key");
        w.startArray(FormatCode.UINT);
        w.writeUInt(1);
        w.writeUInt(70000);
        w.endArray();
        w.writeUInt(3);
        w.writeDescriptor(0x77);
        w.writeBinary(new byte[300]);
        w.endMap();
        w.startDescribedArray(9, FormatCode.LIST8);
        w.startList();
        w.writeLong(-5);
        w.endList();
        w.endArray();
        w.writeUuid(1, 2);
        w.endList();
        return w.toByteArray();
    }

    @Test
    void truncationAtEveryByteBoundaryIsReportedAsTruncated() {
        byte[] full = complexValue();
        // Trailing bytes beyond the limit must not be read: the value is copied into a larger, offset array.
        byte[] padded = new byte[full.length + 40];
        java.util.Arrays.fill(padded, (byte) 0x40);
        System.arraycopy(full, 0, padded, 7, full.length);
        for (int len = 1; len < full.length; len++) {
            int n = len;
            TruncatedEncodingException e = assertThrows(TruncatedEncodingException.class,
                    () -> new AmqpScanner().scan(padded, 7, n, new ValueCollector()), "length " + len);
            assertEquals(7, e.offset(), "the value that does not fit starts at offset 7");
        }
        assertEquals(1, ValueCollector.decodeAll(padded, 7, full.length).size());
    }

    @Test
    void invalidFormatCodesAreInvalidWherever() {
        fails(InvalidEncodingException.class, 0, "invalid format code 0x1", walk("01"));
        fails(InvalidEncodingException.class, 0, "invalid format code 0xff", walk("ff"));
        fails(InvalidEncodingException.class, 3, "invalid format code 0x30", walk("c0 02 01 30"));
        fails(InvalidEncodingException.class, 3, "invalid array element constructor 0x2f", walk("e0 02 00 2f"));
        fails(InvalidEncodingException.class, 3, "invalid format code 0x99", walk("00 53 01 99"));
    }

    @Test
    void listCountLargerThanItsBytesIsInvalid() {
        fails(InvalidEncodingException.class, 1, "list8 count 5 exceeds its 1 bytes", walk("c0 02 05 40"));
        fails(InvalidEncodingException.class, 1, "list32 count 9", walk("d0 00000005 00000009 40"));
        // The count passes the one-byte-per-element bound, but the first element takes both bytes.
        fails(InvalidEncodingException.class, 5, "list8 has 1 elements left but its bytes end at offset 5",
                walk("c0 03 02 50 01"));
        fails(InvalidEncodingException.class, 5, "list8", walk("c0 03 02 50 01 40 40"));
    }

    @Test
    void mapWithAnOddCountIsInvalid() {
        fails(InvalidEncodingException.class, 1, "map8 count 1 is odd", walk("c1 02 01 40"));
        fails(InvalidEncodingException.class, 1, "map32 count 3 is odd", walk("d1 00000007 00000003 40 40 40"));
    }

    @Test
    void arrayWhoseFixedWidthElementsDoNotFillItsSizeIsInvalid() {
        fails(InvalidEncodingException.class, 1, "array8 of 2 int needs 8 bytes but holds 4", walk("e0 06 02 71 00000001"));
        fails(InvalidEncodingException.class, 1, "array8 of 1 int needs 4 bytes but holds 5", walk("e0 07 01 71 00000001 00"));
        fails(InvalidEncodingException.class, 1, "leaves no room for its element constructor", walk("e0 01 00"));
        fails(InvalidEncodingException.class, 1, "array8 count 3 exceeds its 2 bytes", walk("e0 04 03 a1 00 00"));
    }

    @Test
    void elementsThatOverrunOrUnderrunTheirCompoundAreInvalid() {
        // Overrun: a str8 of 5 bytes inside a list8 whose size leaves it 3.
        fails(InvalidEncodingException.class, 3, "past the end of its enclosing list8", walk("c0 05 01 a1 05 61 62 63 64 65"));
        // Underrun: one element declared, but the size holds two more bytes; found when leaving the list.
        fails(InvalidEncodingException.class, 4, "list8 declares", walk("c0 04 01 40 40 40"));
        fails(InvalidEncodingException.class, 11, "map32 declares", walk("d1 00000008 00000002 40 40 41 41"));
        // A described value's descriptor may not run past its enclosing list either.
        fails(InvalidEncodingException.class, 3, "past the end of its enclosing value", walk("c0 03 01 00 a3 05 61"));
    }

    @Test
    void nestingDeeperThanTheLimitIsALimitFault() {
        AmqpWriter w = new AmqpWriter();
        for (int i = 0; i < 4; i++) {
            w.startList();
        }
        w.writeInt(1);
        for (int i = 0; i < 4; i++) {
            w.endList();
        }
        // Three list8 headers of three bytes each, then the fourth list, which would be the fourth level.
        fails(DecodeLimitException.class, 9, "nesting deeper than 3",
                walk(HexFormat.of().formatHex(w.toByteArray()), new DecoderLimits(3, 100)));
    }

    @Test
    void countsAboveTheElementLimitAreALimitFault() {
        DecoderLimits limits = new DecoderLimits(8, 3);
        fails(DecodeLimitException.class, 1, "list8 count 4 exceeds the limit of 3", walk("c0 05 04 40 40 40 40", limits));
        fails(DecodeLimitException.class, 1, "array8 count 4 exceeds the limit of 3", walk("e0 02 04 40", limits));
        fails(DecodeLimitException.class, 1, "map8 count 4 exceeds the limit of 3", walk("c1 05 04 40 40 40 40", limits));
    }

    @Test
    void invalidUtf8AndNonAsciiSymbolsAreInvalidWhenDecodedOrValidated() {
        for (String bad : new String[] {"a1 02 c3 28", "a1 02 c0 80", "a1 03 ed a0 80", "a1 01 e2", "a1 04 f4 90 80 80"}) {
            reader.wrap(hex(bad), 0, hex(bad).length).next();
            fails(InvalidEncodingException.class, 2, "str8 is not valid UTF-8", reader::getString);
            fails(InvalidEncodingException.class, 2, "str8 is not valid UTF-8", reader::validateText);
        }
        reader.wrap(hex("a3 02 61 80"), 0, 4).next();
        fails(InvalidEncodingException.class, 3, "symbol byte 0x80 is not ASCII", reader::getString);
        fails(InvalidEncodingException.class, 3, "symbol byte 0x80 is not ASCII", reader::validateText);
    }

    @Test
    void hugeDeclaredSizesWithFewBytesAreTruncatedWithoutAllocatingForThem() {
        for (String h : new String[] {"d0 7fffffff 00000001 40", "b0 7fffffff 0102", "f0 ffffffff 7fffffff 71 00",
                                      "d1 7fffffff 00000002 40 40", "b1 fffffffe 61", "00 53 70 d0 7fffffff 00000000"}) {
            byte[] b = hex(h);
            fails(TruncatedEncodingException.class, 0, "", walk(h));
            long bytes = AllocationMeter.bytesAllocatedBy(() -> {
                try {
                    reader.wrap(b, 0, b.length).next();
                } catch (TruncatedEncodingException expected) {
                    // the exception and its message are all that may be allocated
                }
            });
            assertTrue(bytes < 16 * 1024, h + " allocated " + bytes + " bytes");
        }
    }

    @Test
    void gettersOnTheWrongTypeAreUnexpectedType() {
        reader.wrap(hex("a1 01 61"), 0, 3).next();
        fails(UnexpectedTypeException.class, 0, "expected an integer but found str8", reader::getInt);
        fails(UnexpectedTypeException.class, 0, "expected a char but found str8", reader::getChar);
        fails(UnexpectedTypeException.class, 0, "expected a uuid but found str8", reader::getUuidMostSignificantBits);
        reader.wrap(hex("40 54 05"), 0, 3).next();
        fails(UnexpectedTypeException.class, 0, "expected boolean but found null", reader::getBoolean);
        reader.next();
        fails(UnexpectedTypeException.class, 1, "expected a string or symbol but found smallint", reader::getString);
        fails(UnexpectedTypeException.class, 1, "expected a binary, string or symbol", reader::getBytes);
        fails(UnexpectedTypeException.class, 1, "expected a timestamp", reader::getTimestamp);
        reader.wrap(hex("80 0000000100000000"), 0, 9).next();
        fails(UnexpectedTypeException.class, 0, "ulong 4294967296 does not fit in 32 bits", reader::getInt);
    }

    @Test
    void invalidBooleanBytesAndCharsAreInvalid() {
        reader.wrap(hex("56 02"), 0, 2).next();
        fails(InvalidEncodingException.class, 1, "boolean byte 0x2 is neither 0 nor 1", reader::getBoolean);
        reader.wrap(hex("73 0000d800"), 0, 5).next();
        fails(InvalidEncodingException.class, 1, "char 0xd800 is not a Unicode scalar value", reader::getChar);
        reader.wrap(hex("73 00110000"), 0, 5).next();
        fails(InvalidEncodingException.class, 1, "char 0x110000", reader::getChar);
    }
}
