package io.amqpservlet.protocol.value;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeLimitException;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Java values ↔ AMQP encodings: {@link ValueEncoder} writes what {@link ValueDecoder}'s table reads back. */
class ValueCodecTest {
    private static byte[] encode(Object value) {
        AmqpWriter w = new AmqpWriter();
        ValueEncoder.encode(value, w);
        return w.toByteArray();
    }

    private static Object decode(byte[] bytes) {
        AmqpReader reader = new AmqpReader().wrap(bytes, 0, bytes.length);
        reader.next();
        return ValueDecoder.decode(reader, 100_000);
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void everyTypeOfTheTableReadsBackAsWritten() {
        Map<Object, Object> all = new LinkedHashMap<>();
        all.put("null", null);
        all.put("boolean", true);
        all.put("ubyte", UnsignedByte.of(255));
        all.put("ushort", UnsignedShort.of(65535));
        all.put("uint", UnsignedInteger.of(4294967295L));
        all.put("ulong", UnsignedLong.of("18446744073709551615"));
        all.put("byte", (byte) -1);
        all.put("short", (short) -2);
        all.put("int", -3);
        all.put("long", -4L);
        all.put("float", 1.5f);
        all.put("double", -2.5);
        all.put("decimal32", new Decimal32(7));
        all.put("decimal64", new Decimal64(8));
        all.put("decimal128", new Decimal128(9, 10));
        all.put("char", new AmqpChar(0x1F600));
        all.put("timestamp", new Date(1700000000123L));
        all.put("uuid", UUID.fromString("01234567-89ab-cdef-0123-456789abcdef"));
        all.put("string", "grüße");
        all.put(Symbol.of("symbol"), Symbol.of("amqp:x"));
        all.put("list", List.of(1, "two", List.of()));
        all.put(UnsignedLong.of(5), Map.of("nested", true));
        all.put("array", AmqpArray.of(AmqpType.UINT, UnsignedInteger.of(1), 2L));
        all.put("strings", AmqpArray.of(AmqpType.STRING, "a", "b".repeat(300)));
        all.put("described", new Described(UnsignedLong.of(0x77), "x"));
        all.put("symbolic", new Described(Symbol.of("com.example:t"), List.of()));
        Object back = decode(encode(all));
        Map<Object, Object> expected = new LinkedHashMap<>(all);
        expected.put("array", AmqpArray.of(AmqpType.UINT, UnsignedInteger.of(1), UnsignedInteger.of(2)));
        assertEquals(expected, back);
    }

    @Test
    void binaryAndTheOtherAcceptedJavaTypes() {
        assertArrayEquals(new byte[] {1, 2}, (byte[]) decode(encode(new byte[] {1, 2})));
        assertArrayEquals(new byte[] {3}, (byte[]) decode(encode(ByteBuffer.wrap(new byte[] {3}))));
        assertEquals(new Date(5), decode(encode(Instant.ofEpochMilli(5))));
        assertEquals(new AmqpChar('x'), decode(encode('x')));
        assertEquals("sb", decode(encode(new StringBuilder("sb"))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> encode(new Object()));
        assertEquals("no AMQP type for a java.lang.Object", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> encode(AmqpArray.of(AmqpType.INT, "x")));
        assertThrows(IllegalArgumentException.class, () -> encode(AmqpArray.of(AmqpType.UBYTE, 256)));
        assertThrows(IllegalArgumentException.class, () -> new UnsignedInteger(-1));
    }

    @Test
    void arraysTakeTheirStatedElementCodes() {
        // array8 of str8: RabbitMQ's replicas
        assertEquals("e00602a1" + "0161" + "0162", hex(encode(AmqpArray.of(AmqpType.STRING, "a", "b"))));
        assertEquals("e00a0270" + "00000001" + "00000002", hex(encode(AmqpArray.of(AmqpType.UINT, 1, 2))));
        assertEquals("e00202" + "40", hex(encode(AmqpArray.of(AmqpType.NULL, null, null))).substring(0, 8));
        byte[] longStrings = encode(AmqpArray.of(AmqpType.SYMBOL, "s".repeat(256)));
        assertEquals(FormatCode.SYM32, longStrings[longStrings[0] == (byte) FormatCode.ARRAY8 ? 3 : 9] & 0xFF);
    }

    @Test
    void describedArraysAreReadAsDescribedElements() {
        AmqpWriter w = new AmqpWriter();
        w.startDescribedArray(Symbol.of("t"), FormatCode.SMALLINT);
        w.writeInt(1);
        w.writeInt(2);
        w.endArray();
        AmqpArray a = assertInstanceOf(AmqpArray.class, decode(w.toByteArray()));
        assertEquals(AmqpType.DESCRIBED, a.elementType());
        assertEquals(List.of(new Described(Symbol.of("t"), 1), new Described(Symbol.of("t"), 2)), a.elements());
    }

    @Test
    void theValueBudgetBoundsWhatADecodeAllocates() {
        Object[] many = new Object[1000];
        Arrays.fill(many, List.of());
        byte[] bytes = encode(Arrays.asList(many));
        AmqpReader reader = new AmqpReader().wrap(bytes, 0, bytes.length);
        reader.next();
        assertThrows(DecodeLimitException.class, () -> ValueDecoder.decode(reader, 1000)); // 1,001 values
        reader.wrap(bytes, 0, bytes.length).next();
        assertEquals(1000, ((List<?>) ValueDecoder.decode(reader, 1001)).size());
    }
}
