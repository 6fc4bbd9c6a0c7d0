package io.amqpservlet.protocol.json;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeLimitException;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.value.AmqpArray;
import io.amqpservlet.protocol.value.UnsignedInteger;
import io.amqpservlet.protocol.value.UnsignedLong;
import io.amqpservlet.protocol.value.ValueDecoder;
import io.amqpservlet.protocol.value.ValueEncoder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The AMQP↔JSON mapping of docs/mapping.md, value by value: both forms, golden bytes, limits, malformed JSON. */
class JsonMappingTest {
    private static String json(Consumer<AmqpWriter> value, JsonForm form) {
        AmqpWriter w = new AmqpWriter();
        value.accept(w);
        return AmqpToJson.toJson(w.array(), w.start(), w.length(), form);
    }

    private static void both(String expected, Consumer<AmqpWriter> value) {
        assertEquals(expected, json(value, JsonForm.PLAIN), "plain");
        assertEquals(expected, json(value, JsonForm.TAGGED), "tagged");
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void typesJsonHasAreTheSameInBothForms() {
        both("null", AmqpWriter::writeNull);
        both("true", w -> w.writeBoolean(true));
        both("false", w -> w.writeBoolean(false));
        both("-9223372036854775808", w -> w.writeLong(Long.MIN_VALUE));
        both("1.5", w -> w.writeDouble(1.5));
        both("-0.0", w -> w.writeDouble(-0.0));
        both("1.0E300", w -> w.writeDouble(1e300));
        both("\"a\\\"b\\\\c\\n\\u0001é😀\"", w -> w.writeString("a\"b\\c\n\u0001é😀"));
        both("[1,\"x\",[]]", w -> {
            w.startList();
            w.writeLong(1);
            w.writeString("x");
            w.startList();
            w.endList();
            w.endList();
        });
        both("{\"name\":\"q1\",\"n\":{}}", w -> {
            w.startMap();
            w.writeString("name");
            w.writeString("q1");
            w.writeString("n");
            w.startMap();
            w.endMap();
            w.endMap();
        });
    }

    @Test
    void typesJsonLacksAreTaggedInBothForms() {
        both("{\"$uuid\":\"01234567-89ab-cdef-0123-456789abcdef\"}",
                w -> w.writeUuid(UUID.fromString("01234567-89ab-cdef-0123-456789abcdef")));
        both("{\"$timestamp\":1700000000123}", w -> w.writeTimestamp(1700000000123L));
        both("{\"$binary\":\"AAEC/w==\"}", w -> w.writeBinary(new byte[] {0, 1, 2, (byte) 0xFF}));
        both("{\"$char\":\"😀\"}", w -> w.writeChar(0x1F600));
        both("{\"$decimal32\":\"2200000a\"}", w -> w.writeDecimal32(0x2200000a));
        both("{\"$decimal64\":\"0000000000000001\"}", w -> w.writeDecimal64(1));
        both("{\"$decimal128\":\"00000000000000020000000000000003\"}", w -> w.writeDecimal128(2, 3));
        both("{\"$double\":\"NaN\"}", w -> w.writeDouble(Double.NaN));
        both("{\"$double\":\"-Infinity\"}", w -> w.writeDouble(Double.NEGATIVE_INFINITY));
        both("{\"$described\":[4660,\"x\"]}", w -> {
            w.writeDescriptor(0x1234);
            w.writeString("x");
        });
        both("{\"$described\":[\"com.example:thing\",[]]}", w -> {
            w.writeDescriptor(Symbol.of("com.example:thing"));
            w.startList();
            w.endList();
        });
        both("{\"$map\":[[1,\"one\"],[true,null]]}", w -> {
            w.startMap();
            w.writeLong(1);
            w.writeString("one");
            w.writeBoolean(true);
            w.writeNull();
            w.endMap();
        });
    }

    @Test
    void plainWritesNumbersSymbolsAndArraysTheWayJsonReadersExpect() {
        assertEquals("255", json(w -> w.writeUByte(255), JsonForm.PLAIN));
        assertEquals("4294967295", json(w -> w.writeUInt(-1), JsonForm.PLAIN));
        assertEquals("18446744073709551615", json(w -> w.writeULong(-1L), JsonForm.PLAIN));
        assertEquals("-5", json(w -> w.writeInt(-5), JsonForm.PLAIN));
        assertEquals("0.1", json(w -> w.writeFloat(0.1f), JsonForm.PLAIN));
        assertEquals("\"amqp:x\"", json(w -> w.writeSymbol("amqp:x"), JsonForm.PLAIN));
        assertEquals("{\"k\":1}", json(w -> {
            w.startMap();
            w.writeSymbol("k");
            w.writeInt(1);
            w.endMap();
        }, JsonForm.PLAIN));
        assertEquals("[\"a\",\"b\"]", json(w -> {
            w.startArray(FormatCode.STR8);
            w.writeString("a");
            w.writeString("b");
            w.endArray();
        }, JsonForm.PLAIN));
    }

    @Test
    void taggedKeepsEveryTypePlainJsonWouldLose() {
        assertEquals("{\"$ubyte\":255}", json(w -> w.writeUByte(255), JsonForm.TAGGED));
        assertEquals("{\"$ushort\":65535}", json(w -> w.writeUShort(65535), JsonForm.TAGGED));
        assertEquals("{\"$uint\":4294967295}", json(w -> w.writeUInt(-1), JsonForm.TAGGED));
        assertEquals("{\"$ulong\":18446744073709551615}", json(w -> w.writeULong(-1L), JsonForm.TAGGED));
        assertEquals("{\"$byte\":-128}", json(w -> w.writeByte((byte) -128), JsonForm.TAGGED));
        assertEquals("{\"$short\":-2}", json(w -> w.writeShort((short) -2), JsonForm.TAGGED));
        assertEquals("{\"$int\":-5}", json(w -> w.writeInt(-5), JsonForm.TAGGED));
        assertEquals("{\"$float\":0.1}", json(w -> w.writeFloat(0.1f), JsonForm.TAGGED));
        assertEquals("{\"$symbol\":\"amqp:x\"}", json(w -> w.writeSymbol("amqp:x"), JsonForm.TAGGED));
        assertEquals("{\"$map\":[[{\"$symbol\":\"k\"},1]]}", json(w -> {
            w.startMap();
            w.writeSymbol("k");
            w.writeLong(1);
            w.endMap();
        }, JsonForm.TAGGED));
        assertEquals("{\"$array\":[\"string\",\"a\",\"b\"]}", json(w -> {
            w.startArray(FormatCode.STR8);
            w.writeString("a");
            w.writeString("b");
            w.endArray();
        }, JsonForm.TAGGED));
        assertEquals("{\"$array\":[\"uint\",1,4294967295]}", json(w -> {
            w.startArray(FormatCode.UINT);
            w.writeUInt(1);
            w.writeUInt(-1);
            w.endArray();
        }, JsonForm.TAGGED));
        assertEquals("{\"$array\":[\"array\",[\"symbol\",\"a\"],[\"symbol\"]]}", json(w -> {
            w.startArray(FormatCode.ARRAY32);
            w.startArray(FormatCode.SYM8);
            w.writeSymbol("a");
            w.endArray();
            w.startArray(FormatCode.SYM8);
            w.endArray();
            w.endArray();
        }, JsonForm.TAGGED));
    }

    @Test
    void aMapWhoseOnlyKeyIsATagNameIsNotMistakenForTheTag() {
        byte[] amqp = JsonToAmqp.toAmqp("{\"$map\":[[\"$uuid\",\"not a uuid\"]]}");
        assertEquals("{\"$map\":[[\"$uuid\",\"not a uuid\"]]}", AmqpToJson.toJson(amqp, 0, amqp.length, JsonForm.PLAIN));
        assertEquals(Map.of("$uuid", "not a uuid"), decode(amqp));
        // With a second member it is an ordinary object, whatever its first name.
        assertEquals(Map.of("$uuid", 1L, "b", 2L), decode(JsonToAmqp.toAmqp("{\"$uuid\":1,\"b\":2}")));
        // Names that are not tags are ordinary names.
        assertEquals(Map.of("$ref", "x"), decode(JsonToAmqp.toAmqp("{\"$ref\":\"x\"}")));
    }

    @Test
    void stringAndSymbolKeysWithOneNameBecomeAMapOfPairs() {
        assertEquals("{\"$map\":[[\"k\",1],[\"k\",2]]}", json(w -> {
            w.startMap();
            w.writeString("k");
            w.writeLong(1);
            w.writeSymbol("k");
            w.writeLong(2);
            w.endMap();
        }, JsonForm.PLAIN));
    }

    @Test
    void aMapWithAKeyTwiceBecomesAMapOfPairsThatReadsBack() {
        // Not a valid AMQP map (§1.6.23), but one the reader takes: as an object it would repeat a name, which does
        // not read back. Small maps are compared pairwise, large ones through a set.
        for (int entries : new int[] {2, 16, 17, 1_000}) {
            AmqpWriter w = new AmqpWriter();
            w.startMap();
            for (int i = 0; i < entries - 1; i++) {
                w.writeString("k" + i);
                w.writeLong(i);
            }
            w.writeString("k0");
            w.writeLong(-1);
            w.endMap();
            for (JsonForm form : JsonForm.values()) {
                String json = AmqpToJson.toJson(w.array(), w.start(), w.length(), form);
                assertTrue(json.startsWith("{\"$map\":[[\"k0\",0],"), form + " " + entries + ": " + json);
                assertEquals(hex(w.toByteArray()), hex(JsonToAmqp.toAmqp(json)), form + " " + entries);
            }
        }
        // Keys of one length that differ are distinct names: an object.
        assertEquals("{\"ab\":1,\"ba\":2}", json(w -> {
            w.startMap();
            w.writeString("ab");
            w.writeLong(1);
            w.writeString("ba");
            w.writeLong(2);
            w.endMap();
        }, JsonForm.PLAIN));
    }

    @Test
    void jsonBecomesTheStatedAmqpEncodings() {
        // map8 {str8 "a": smalllong 1, "b": [true, null, double 1.5, ulong 2^63]}
        assertEquals("c12004a10161550" + "1a10162c015" + "04" + "41" + "40" + "823ff8000000000000" + "808000000000000000",
                hex(JsonToAmqp.toAmqp("{\"a\":1,\"b\":[true,null,1.5,9223372036854775808]}")));
        assertEquals("a0020102", hex(JsonToAmqp.toAmqp(" {\"$binary\" : \"AQI=\"} ")));
        assertEquals("00531d" + "a10178", hex(JsonToAmqp.toAmqp("{\"$described\":[29,\"x\"]}")));
        assertEquals("00a303612e62" + "40", hex(JsonToAmqp.toAmqp("{\"$described\":[\"a.b\",null]}")));
        // Other descriptors (AMQP 1.0 §1.5 reserves them) are read as any value: a double, a long.
        assertEquals("00" + "823ff8000000000000" + "5502", hex(JsonToAmqp.toAmqp("{\"$described\":[1.5,2]}")));
        assertEquals("00" + "55ff" + "40", hex(JsonToAmqp.toAmqp("{\"$described\":[-1,null]}")));
        // An AMQP array made from JSON takes the full-width element code: its elements are not known ahead.
        assertEquals("e00c02b1" + "0000000161" + "0000000162", hex(JsonToAmqp.toAmqp("{\"$array\":[\"string\",\"a\",\"b\"]}")));
        assertEquals("e00a0270" + "00000005" + "ffffffff", hex(JsonToAmqp.toAmqp("{\"$array\":[\"uint\",5,4294967295]}")));
        assertEquals("82" + "7ff0000000000000", hex(JsonToAmqp.toAmqp("{\"$double\":\"Infinity\"}")));
        assertEquals("72" + "3dcccccd", hex(JsonToAmqp.toAmqp("{\"$float\":0.1}")));
        // Beyond 2^64-1 an integer is a double, as JSON readers commonly read it.
        assertEquals("82" + "43f0000000000000", hex(JsonToAmqp.toAmqp("18446744073709551616")));
        assertEquals("81" + "8000000000000000", hex(JsonToAmqp.toAmqp("-9223372036854775808")));
    }

    @Test
    void aManagementResponseWritesAndReadsBackWithItsTypes() {
        // The shape RabbitMQ's AMQP 1.0 clients expect of a queue: ulong, uint and an AMQP array of strings.
        Map<String, Object> queue = new LinkedHashMap<>();
        queue.put("name", "orders");
        queue.put("durable", true);
        queue.put("arguments", Map.of());
        queue.put("message_count", UnsignedLong.of(0));
        queue.put("consumer_count", UnsignedInteger.of(2));
        queue.put("replicas", AmqpArray.of(io.amqpservlet.protocol.codec.AmqpType.STRING, "rabbit@a", "rabbit@b"));
        AmqpWriter w = new AmqpWriter();
        ValueEncoder.encode(queue, w);
        String tagged = AmqpToJson.toJson(w.array(), 0, w.length(), JsonForm.TAGGED);
        assertEquals("{\"name\":\"orders\",\"durable\":true,\"arguments\":{},\"message_count\":{\"$ulong\":0},"
                + "\"consumer_count\":{\"$uint\":2},\"replicas\":{\"$array\":[\"string\",\"rabbit@a\",\"rabbit@b\"]}}", tagged);
        assertEquals(queue, decode(JsonToAmqp.toAmqp(tagged)));
        assertEquals("{\"name\":\"orders\",\"durable\":true,\"arguments\":{},\"message_count\":0,\"consumer_count\":2,"
                + "\"replicas\":[\"rabbit@a\",\"rabbit@b\"]}", AmqpToJson.toJson(w.array(), 0, w.length(), JsonForm.PLAIN));
    }

    @Test
    void anAmqpSequenceBodyIsOneJsonArrayOfEverySectionsElements() {
        AmqpWriter w = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(w);
        m.startAmqpSequence();
        w.writeInt(1);
        w.writeString("two");
        m.endAmqpSequence();
        m.startAmqpSequence();
        w.writeBoolean(true);
        m.endAmqpSequence();
        m.end();
        MessageView view = new MessageView().wrap(w.array(), 0, w.length());
        assertEquals("[1,\"two\",true]", new AmqpToJson(JsonForm.PLAIN, 1024).body(view, new AmqpReader()).toString());
        assertEquals(List.of(1, "two", true), ValueDecoder.decodeBody(view, new AmqpReader(), 100));
    }

    @Test
    void malformedJsonIsRefusedWithWhereItWentWrong() {
        String[] bad = {
            "", " ", "{", "[", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "01", "1.", "-", ".5",
            "1e", "+1", "nul", "True", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"", "\"\u0001\"",
            "[1] x", "{\"a\":1,\"a\":2}", "NaN", "Infinity",
            "{\"$uint\":-1}", "{\"$uint\":4294967296}", "{\"$uint\":1.5}", "{\"$ubyte\":256}", "{\"$byte\":128}",
            "{\"$ulong\":-1}", "{\"$ulong\":18446744073709551616}", "{\"$int\":\"5\"}", "{\"$long\":9223372036854775808}",
            "{\"$float\":\"nan\"}", "{\"$timestamp\":1.0}",
            "{\"$uuid\":\"0123\"}", "{\"$uuid\":\"0123456789abcdef0123456789abcdef0123\"}", "{\"$uuid\":1}",
            "{\"$binary\":\"!!\"}", "{\"$binary\":\"AQ=I\"}", "{\"$char\":\"ab\"}", "{\"$char\":\"\"}",
            "{\"$decimal32\":\"123\"}", "{\"$decimal64\":\"xx00000000000000\"}", "{\"$symbol\":\"é\"}",
            "{\"$map\":[[1]]}", "{\"$map\":[1,2]}", "{\"$array\":[]}", "{\"$array\":[\"described\"]}",
            "{\"$array\":[\"Uint\",1]}", "{\"$array\":[\"uint\",-1]}", "{\"$array\":[\"list\",{}]}",
            "{\"$described\":[1]}",
        };
        for (String json : bad) {
            byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
            MalformedJsonException e = assertThrows(MalformedJsonException.class,
                    () -> new JsonToAmqp().write(utf8, 0, utf8.length, new AmqpWriter()), json);
            assertTrue(e.offset() >= 0 && e.offset() <= utf8.length, json + ": " + e.getMessage());
        }
        byte[] notUtf8 = {'"', (byte) 0xC3, '"'};
        assertThrows(MalformedJsonException.class, () -> new JsonToAmqp().write(notUtf8, 0, 3, new AmqpWriter()));
    }

    @Test
    void theDecoderLimitsBoundJson() {
        String deep = "[".repeat(65) + "]".repeat(65);
        assertThrows(DecodeLimitException.class, () -> JsonToAmqp.toAmqp(deep));
        JsonToAmqp.toAmqp("[".repeat(64) + "]".repeat(64));
        // Depth counts AMQP compounds, as the reader does: a tag's object is not one. 64 described values nest
        // 128 JSON levels and are read; so is their AMQP encoding.
        byte[] described = JsonToAmqp.toAmqp("{\"$described\":[1,".repeat(64) + "null" + "]}".repeat(64));
        AmqpReader reader = new AmqpReader().wrap(described, 0, described.length);
        reader.next();
        AmqpToJson.toJson(described, 0, described.length, JsonForm.TAGGED);
        assertThrows(DecodeLimitException.class,
                () -> JsonToAmqp.toAmqp("{\"$described\":[1,".repeat(65) + "null" + "]}".repeat(65)));
        JsonToAmqp small = new JsonToAmqp(new DecoderLimits(8, 3));
        byte[] four = "[1,2,3,4]".getBytes(StandardCharsets.US_ASCII);
        assertThrows(DecodeLimitException.class, () -> small.write(four, 0, four.length, new AmqpWriter()));
        byte[] twoMembers = "{\"a\":1,\"b\":2}".getBytes(StandardCharsets.US_ASCII);
        assertThrows(DecodeLimitException.class, () -> small.write(twoMembers, 0, twoMembers.length, new AmqpWriter()));
        byte[] array = "{\"$array\":[\"int\",1,2,3,4]}".getBytes(StandardCharsets.US_ASCII);
        assertThrows(DecodeLimitException.class, () -> small.write(array, 0, array.length, new AmqpWriter()));
    }

    @Test
    void theJsonTextIsBounded() {
        AmqpWriter w = new AmqpWriter();
        w.startList();
        for (int i = 0; i < 100; i++) {
            w.writeNull(); // one byte each, four characters of JSON
        }
        w.endList();
        AmqpReader reader = new AmqpReader().wrap(w.array(), 0, w.length());
        reader.next();
        assertThrows(DecodeLimitException.class, () -> new AmqpToJson(JsonForm.PLAIN, 400).value(reader));
        reader.wrap(w.array(), 0, w.length()).next();
        assertEquals(501, new AmqpToJson(JsonForm.PLAIN, 501).value(reader).length());
    }

    @Test
    void plainJsonReadsBackWithTheStatedTypeChanges() {
        AmqpWriter w = new AmqpWriter();
        w.startList();
        w.writeUInt(7);
        w.writeInt(-7);
        w.writeULong(-1L);
        w.writeFloat(0.5f);
        w.writeSymbol("s");
        w.startArray(FormatCode.SYM8);
        w.writeSymbol("a");
        w.endArray();
        w.endList();
        String plain = AmqpToJson.toJson(w.array(), 0, w.length(), JsonForm.PLAIN);
        assertEquals("[7,-7,18446744073709551615,0.5,\"s\",[\"a\"]]", plain);
        assertEquals(Arrays.asList(7L, -7L, UnsignedLong.of(-1L), 0.5d, "s", List.of("a")),
                decode(JsonToAmqp.toAmqp(plain)));
    }

    private static Object decode(byte[] amqp) {
        AmqpReader reader = new AmqpReader().wrap(amqp, 0, amqp.length);
        reader.next();
        return ValueDecoder.decode(reader, 10_000);
    }
}
