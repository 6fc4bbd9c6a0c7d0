package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The writer's choice of encoding at every width boundary (AMQP 1.0 §1.6: the smallest encoding that holds the
 * value), asserted as exact bytes written by hand from the spec, and the reader's reading of those bytes.
 */
class SmallestEncodingTest {
    private static String hex(Consumer<AmqpWriter> write) {
        AmqpWriter w = new AmqpWriter(16);
        write.accept(w);
        return HexFormat.of().formatHex(w.toByteArray());
    }

    private static AmqpReader read(String hex) {
        byte[] b = HexFormat.of().parseHex(hex);
        AmqpReader r = new AmqpReader().wrap(b, 0, b.length);
        r.next();
        return r;
    }

    @Test
    void intTakesSmallintOnlyWithinASignedByte() {
        assertEquals("5480", hex(w -> w.writeInt(-128)));
        assertEquals("547f", hex(w -> w.writeInt(127)));
        assertEquals("7100000080", hex(w -> w.writeInt(128)));
        assertEquals("71ffffff7f", hex(w -> w.writeInt(-129)));
        assertEquals("7180000000", hex(w -> w.writeInt(Integer.MIN_VALUE)));
        assertEquals("717fffffff", hex(w -> w.writeInt(Integer.MAX_VALUE)));
        assertEquals(Integer.MIN_VALUE, read("7180000000").getInt());
        assertEquals(-128, read("5480").getInt());
    }

    @Test
    void longTakesSmalllongOnlyWithinASignedByte() {
        assertEquals("5580", hex(w -> w.writeLong(-128)));
        assertEquals("557f", hex(w -> w.writeLong(127)));
        assertEquals("810000000000000080", hex(w -> w.writeLong(128)));
        assertEquals("818000000000000000", hex(w -> w.writeLong(Long.MIN_VALUE)));
        assertEquals("817fffffffffffffff", hex(w -> w.writeLong(Long.MAX_VALUE)));
        assertEquals(Long.MIN_VALUE, read("818000000000000000").getLong());
    }

    @Test
    void unsignedIntsTakeTheZeroAndOneByteFormsBelow256() {
        assertEquals("43", hex(w -> w.writeUInt(0)));
        assertEquals("5201", hex(w -> w.writeUInt(1)));
        assertEquals("52ff", hex(w -> w.writeUInt(255)));
        assertEquals("7000000100", hex(w -> w.writeUInt(256)));
        assertEquals("70ffffffff", hex(w -> w.writeUInt(0xFFFFFFFFL)));
        assertEquals(0xFFFFFFFFL, read("70ffffffff").getUnsignedInt());
        assertEquals("44", hex(w -> w.writeULong(0)));
        assertEquals("53ff", hex(w -> w.writeULong(255)));
        assertEquals("800000000000000100", hex(w -> w.writeULong(256)));
        assertEquals("80ffffffffffffffff", hex(w -> w.writeULong(-1L)));
        assertEquals(-1L, read("80ffffffffffffffff").getLong());
    }

    @Test
    void fixedWidthIntegersAtTheirLimits() {
        assertEquals("5000", hex(w -> w.writeUByte(0)));
        assertEquals("50ff", hex(w -> w.writeUByte(255)));
        assertEquals(255, read("50ff").getInt());
        assertEquals("60ffff", hex(w -> w.writeUShort(65535)));
        assertEquals(65535, read("60ffff").getInt());
        assertEquals("5180", hex(w -> w.writeByte(Byte.MIN_VALUE)));
        assertEquals(-128, read("5180").getInt());
        assertEquals("517f", hex(w -> w.writeByte(Byte.MAX_VALUE)));
        assertEquals("618000", hex(w -> w.writeShort(Short.MIN_VALUE)));
        assertEquals(Short.MIN_VALUE, read("618000").getInt());
        assertEquals("617fff", hex(w -> w.writeShort(Short.MAX_VALUE)));
    }

    @Test
    void floatsKeepSignedZeroInfinitiesAndNanPayloads() {
        assertEquals("7280000000", hex(w -> w.writeFloat(-0.0f)));
        assertEquals("7200000000", hex(w -> w.writeFloat(0.0f)));
        assertEquals("727f800000", hex(w -> w.writeFloat(Float.POSITIVE_INFINITY)));
        assertEquals("72ff800000", hex(w -> w.writeFloat(Float.NEGATIVE_INFINITY)));
        assertEquals("727fc00001", hex(w -> w.writeFloat(Float.intBitsToFloat(0x7FC00001))));
        assertEquals(0x7FC00001, Float.floatToRawIntBits(read("727fc00001").getFloat()));
        assertEquals(0x80000000, Float.floatToRawIntBits(read("7280000000").getFloat()));
        assertEquals("828000000000000000", hex(w -> w.writeDouble(-0.0)));
        assertEquals("82fff0000000000000", hex(w -> w.writeDouble(Double.NEGATIVE_INFINITY)));
        assertEquals("827ff8000000000001", hex(w -> w.writeDouble(Double.longBitsToDouble(0x7FF8000000000001L))));
        assertEquals(0x7FF8000000000001L, Double.doubleToRawLongBits(read("827ff8000000000001").getDouble()));
    }

    @Test
    void charsAboveTheBasicPlaneAreUtf32() {
        assertEquals("730001f600", hex(w -> w.writeChar(0x1F600)));
        assertEquals("730010ffff", hex(w -> w.writeChar(0x10FFFF)));
        assertEquals(0x1F600, read("730001f600").getChar());
        assertEquals(0x10FFFF, read("730010ffff").getChar());
    }

    @Test
    void variableWidthValuesSwitchTo32BitSizesAt256Bytes() {
        byte[] b255 = new byte[255];
        byte[] b256 = new byte[256];
        assertEquals("a0ff" + "00".repeat(255), hex(w -> w.writeBinary(b255)));
        assertEquals("b000000100" + "00".repeat(256), hex(w -> w.writeBinary(b256)));
        assertEquals("a1ff" + "61".repeat(255), hex(w -> w.writeString("a".repeat(255))));
        assertEquals("b100000100" + "61".repeat(256), hex(w -> w.writeString("a".repeat(256))));
        assertEquals("a3ff" + "61".repeat(255), hex(w -> w.writeSymbol("a".repeat(255))));
        assertEquals("b300000100" + "61".repeat(256), hex(w -> w.writeSymbol(Symbol.of("a".repeat(256)))));
        assertEquals("a000", hex(w -> w.writeBinary(new byte[0])));
        assertEquals("a100", hex(w -> w.writeString("")));
    }

    @Test
    void nonAsciiStringsAreSizedInUtf8BytesNotChars() {
        // 85 three-byte chars are 255 bytes (str8); 86 are 258 (str32). 127 two-byte chars and an 'a' are 255.
        assertEquals("a1ff" + "e282ac".repeat(85), hex(w -> w.writeString("\u20ac".repeat(85))));
        assertEquals("b100000102" + "e282ac".repeat(86), hex(w -> w.writeString("\u20ac".repeat(86))));
        assertEquals("a1ff" + "c3a9".repeat(127) + "61", hex(w -> w.writeString("\u00e9".repeat(127) + "a")));
        assertEquals("b100000100" + "c3a9".repeat(128), hex(w -> w.writeString("\u00e9".repeat(128))));
        // 63 emoji are 126 chars and 252 bytes: str8, though 126 chars could take up to 378 bytes.
        assertEquals("a1fc" + "f09f9880".repeat(63), hex(w -> w.writeString("\ud83d\ude00".repeat(63))));
        assertEquals("\ud83d\ude00".repeat(64), read("b100000100" + "f09f9880".repeat(64)).getString());
    }

    @Test
    void listsUseList0ThenList8UpTo255BytesAnd255Elements() {
        assertEquals("45", hex(w -> { w.startList(); w.endList(); }));
        // 254 nulls: size 255 (count byte + 254) fits list8; 255 nulls need size 256.
        assertEquals("c0fffe" + "40".repeat(254), hex(w -> nulls(w, 254)));
        assertEquals("d000000103000000ff" + "40".repeat(255), hex(w -> nulls(w, 255)));
        assertEquals("d00000010400000100" + "40".repeat(256), hex(w -> nulls(w, 256)));
        // By bytes: one binary of 252 bytes is a 254-byte element, size 255; 253 bytes overflow to list32.
        assertEquals("c0ff01a0fc" + "00".repeat(252), hex(w -> { w.startList(); w.writeBinary(new byte[252]); w.endList(); }));
        assertEquals("d00000010300000001a0fd" + "00".repeat(253),
                hex(w -> { w.startList(); w.writeBinary(new byte[253]); w.endList(); }));
        AmqpReader r = read("d000000103000000ff" + "40".repeat(255));
        assertEquals(255, r.count());
    }

    private static void nulls(AmqpWriter w, int n) {
        w.startList();
        for (int i = 0; i < n; i++) {
            w.writeNull();
        }
        w.endList();
    }

    @Test
    void mapsUseMap8UpTo255Bytes() {
        assertEquals("c10100", hex(w -> { w.startMap(); w.endMap(); }));
        assertEquals("c1fffe" + "40".repeat(254), hex(w -> { w.startMap(); for (int i = 0; i < 254; i++) { w.writeNull(); } w.endMap(); }));
        assertEquals("d10000010400000100" + "40".repeat(256), hex(w -> { w.startMap(); for (int i = 0; i < 256; i++) { w.writeNull(); } w.endMap(); }));
    }

    @Test
    void arraysUseArray8UpTo255BytesAndKeepTheirElementConstructorWhenEmpty() {
        assertEquals("e0020071", hex(w -> { w.startArray(FormatCode.INT); w.endArray(); }));
        AmqpReader r = read("e0020071");
        assertEquals(0, r.count());
        assertEquals(FormatCode.INT, r.arrayElementCode());
        r.enter();
        assertEquals(false, r.hasNext());
        r.exit();
        // 253 ubytes: size = count byte + constructor + 253 = 255; 254 need array32.
        assertEquals("e0fffd50" + "07".repeat(253), hex(w -> ubytes(w, 253)));
        assertEquals("f000000103000000fe50" + "07".repeat(254), hex(w -> ubytes(w, 254)));
        // Zero-width elements: 255 trues fit array8's count, 256 do not.
        assertEquals("e002ff41", hex(w -> trues(w, 255)));
        assertEquals("f0000000050000010041", hex(w -> trues(w, 256)));
        AmqpReader t = read("f0000000050000010041");
        t.enter();
        int n = 0;
        while (t.hasNext()) {
            t.next();
            assertEquals(true, t.getBoolean());
            n++;
        }
        t.exit();
        assertEquals(256, n);
    }

    private static void ubytes(AmqpWriter w, int n) {
        w.startArray(FormatCode.UBYTE);
        for (int i = 0; i < n; i++) {
            w.writeUByte(7);
        }
        w.endArray();
    }

    private static void trues(AmqpWriter w, int n) {
        w.startArray(FormatCode.BOOLEAN_TRUE);
        for (int i = 0; i < n; i++) {
            w.writeBoolean(true);
        }
        w.endArray();
    }

    @Test
    void descriptorsTakeSmallulongOrSym8() {
        assertEquals("00537045", hex(w -> { w.writeDescriptor(0x70); w.startList(); w.endList(); }));
        assertEquals("0080000000010000000040", hex(w -> { w.writeDescriptor(0x1_0000_0000L); w.writeNull(); }));
        assertEquals("00a301784", hex(w -> { w.writeDescriptor(Symbol.of("x")); w.writeNull(); }).substring(0, 9));
        assertEquals(0x70, read("00537045").descriptorCode());
    }

    @Test
    void describedArrayKeepsADescriptorCodeAboveLongMaxValue() {
        // A ulong descriptor is 64 unsigned bits; the top bit set must not read as "no descriptor".
        String h = hex(w -> { w.startDescribedArray(0x8000_0000_0000_0001L, FormatCode.SMALLINT); w.writeInt(5); w.endArray(); });
        assertEquals("e00d01" + "00808000000000000001" + "54" + "05", h);
        AmqpReader r = read(h);
        assertEquals(true, r.isDescribedArray());
    }
}
