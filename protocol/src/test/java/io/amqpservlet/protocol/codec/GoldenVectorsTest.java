package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.codec.AmqpValue.ArrayV;
import io.amqpservlet.protocol.codec.AmqpValue.Bin;
import io.amqpservlet.protocol.codec.AmqpValue.Bool;
import io.amqpservlet.protocol.codec.AmqpValue.Described;
import io.amqpservlet.protocol.codec.AmqpValue.F32;
import io.amqpservlet.protocol.codec.AmqpValue.F64;
import io.amqpservlet.protocol.codec.AmqpValue.I16;
import io.amqpservlet.protocol.codec.AmqpValue.I32;
import io.amqpservlet.protocol.codec.AmqpValue.I64;
import io.amqpservlet.protocol.codec.AmqpValue.ListV;
import io.amqpservlet.protocol.codec.AmqpValue.MapV;
import io.amqpservlet.protocol.codec.AmqpValue.Str;
import io.amqpservlet.protocol.codec.AmqpValue.Sym;
import io.amqpservlet.protocol.codec.AmqpValue.Timestamp;
import io.amqpservlet.protocol.codec.AmqpValue.UByte;
import io.amqpservlet.protocol.codec.AmqpValue.UInt;
import io.amqpservlet.protocol.codec.AmqpValue.ULong;
import io.amqpservlet.protocol.codec.AmqpValue.UShort;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Byte streams written by the Apache Qpid Proton-C codec (test resources vectors/proton-interop, see NOTICE):
 * the reader must decode each to exactly the values the vectors' README lists, to the end of the file, and the
 * writer's re-encoding of those values must decode to them again (widths may differ, so not byte for byte).
 */
class GoldenVectorsTest {
    private static final AmqpValue NULL = AmqpValue.NULL;

    record Vector(String file, List<AmqpValue> values) {
        @Override
        public String toString() {
            return file;
        }
    }

    static Stream<Vector> vectors() {
        return Stream.of(
                new Vector("null.amqp", List.of(NULL)),
                new Vector("primitives.amqp", List.of(new Bool(true), new Bool(false), new UByte(42), new UShort(42),
                        new I16((short) -42), new UInt(12345), new I32(-12345), new ULong(12345), new I64(-12345),
                        new F32(Float.floatToRawIntBits(0.125f)), new F64(Double.doubleToRawLongBits(0.125)))),
                new Vector("strings.amqp", List.of(new Bin("abc\0defg".getBytes(StandardCharsets.US_ASCII)),
                        new Str("abcdefg"), new Sym("abcdefg"), new Bin(new byte[0]), new Str(""), new Sym(""))),
                new Vector("described.amqp", List.of(new Described(new Sym("foo-descriptor"), new Str("foo-value")),
                        new Described(new I32(12), new I32(13)))),
                new Vector("described_array.amqp", List.of(new ArrayV(AmqpType.INT, new Sym("int-array"), ints(10)))),
                new Vector("arrays.amqp", List.of(new ArrayV(AmqpType.INT, null, ints(100)),
                        new ArrayV(AmqpType.STRING, null, List.of(new Str("a"), new Str("b"), new Str("c"))),
                        new ArrayV(AmqpType.INT, null, List.of()))),
                new Vector("lists.amqp", List.of(new ListV(List.of(new I32(32), new Str("foo"), new Bool(true))),
                        new ListV(List.of()))),
                // The README lists the first map as one, two, three "(entry order as written)"; Proton-C wrote
                // its entries three, two, one, and a map's entries are compared in encoding order here.
                new Vector("maps.amqp", List.of(
                        new MapV(List.of(new Str("three"), new I32(3), new Str("two"), new I32(2), new Str("one"), new I32(1))),
                        new MapV(List.of(new I32(1), new Str("one"), new I32(2), new Str("two"), new I32(3), new Str("three"))),
                        new MapV(List.of()))),
                new Vector("message.amqp", List.of(
                        // AMQP 1.0 §3.2.1 header: durable, priority, ttl, first-acquirer, delivery-count.
                        new Described(new ULong(0x70), new ListV(List.of(new Bool(false), new UByte(4), NULL,
                                new Bool(false), new UInt(0)))),
                        // §3.2.4 properties: eight nulls, absolute-expiry-time and creation-time 0, group-id,
                        // group-sequence 0, reply-to-group-id.
                        new Described(new ULong(0x73), new ListV(concat(Collections.nCopies(8, NULL),
                                List.of(new Timestamp(0), new Timestamp(0), NULL, new UInt(0), NULL)))),
                        // §3.2.8 amqp-value, holding a binary that is itself the encoding of the string "hello".
                        new Described(new ULong(0x77), new Bin(new byte[] {(byte) 0xA1, 5, 'h', 'e', 'l', 'l', 'o'})))));
    }

    private static List<AmqpValue> ints(int n) {
        List<AmqpValue> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new I32(i));
        }
        return out;
    }

    private static List<AmqpValue> concat(List<AmqpValue> a, List<AmqpValue> b) {
        List<AmqpValue> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static byte[] load(String file) throws IOException {
        try (InputStream in = GoldenVectorsTest.class.getResourceAsStream("/vectors/proton-interop/" + file)) {
            assertNotNull(in, file);
            return in.readAllBytes();
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void decodesEveryValueInTheFileToTheListedValues(Vector v) throws IOException {
        assertEquals(v.values(), ValueCollector.decodeAll(load(v.file())));
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void reencodedValuesDecodeToTheSameValues(Vector v) {
        for (ValueWriter.ArrayCodes codes : ValueWriter.ArrayCodes.values()) {
            AmqpWriter writer = new AmqpWriter();
            ValueWriter values = new ValueWriter(writer, new Random(v.file().hashCode()), codes);
            for (AmqpValue value : v.values()) {
                values.write(value);
            }
            assertEquals(v.values(), ValueCollector.decodeAll(writer.toByteArray()), codes.name());
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void readerAloneReachesTheEndOfTheFileValueByValue(Vector v) throws IOException {
        // Without the scanner: next() and exit() skip each top-level value whole, using its size fields.
        byte[] bytes = load(v.file());
        AmqpReader reader = new AmqpReader().wrap(bytes, 0, bytes.length);
        int n = 0;
        while (reader.hasNext()) {
            reader.next();
            assertEquals(AmqpValue.typeOf(v.values().get(n)), reader.type(), "value " + n);
            n++;
        }
        assertEquals(v.values().size(), n);
        assertEquals(bytes.length, reader.position());
    }
}
