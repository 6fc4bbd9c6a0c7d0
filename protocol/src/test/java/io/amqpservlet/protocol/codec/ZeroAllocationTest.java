package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Steady-state encode and decode allocate nothing (docs/design.md §2): a loop of 10,000 iterations, run twice to warm up,
 * is measured with {@link AllocationMeter}, which subtracts the cost of measuring, and must read exactly 0 bytes.
 */
class ZeroAllocationTest {
    private static final int ITERATIONS = 10_000;
    private static final Symbol CONTENT_TYPE = Symbol.of("content-type");
    private static final Symbol DESCRIPTOR = Symbol.of("test:properties");

    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpReader reader = new AmqpReader();
    private final MutableBytes text = new MutableBytes();
    /** Escapes through a field so that the JIT cannot drop the measured work; checked after the warm-up. */
    private long checksum;

    /** The codec seed benchmark's value: a list of ten ints and a UUID, encoded then decoded. */
    private void listOfIntsAndUuid() {
        AmqpWriter w = writer.clear();
        w.startList();
        for (int i = 0; i < 10; i++) {
            w.writeInt(i * 100_000);
        }
        w.writeUuid(0x0123456789ABCDEFL, 0xFEDCBA9876543210L);
        w.endList();

        AmqpReader r = reader.wrap(w.array(), w.start(), w.length());
        r.next();
        r.enter();
        long sum = 0;
        for (int i = 0; i < 10; i++) {
            r.next();
            sum += r.getInt();
        }
        r.next();
        sum += r.getUuidMostSignificantBits() ^ r.getUuidLeastSignificantBits();
        r.exit();
        checksum += sum;
    }

    @Test
    void encodingAndDecodingAListOfIntsAndAUuidAllocatesNothing() {
        Runnable loop = () -> {
            for (int i = 0; i < ITERATIONS; i++) {
                listOfIntsAndUuid();
            }
        };
        loop.run();
        loop.run();
        assertEquals(2L * ITERATIONS * (4_500_000L + (0x0123456789ABCDEFL ^ 0xFEDCBA9876543210L)), checksum);
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }

    /**
     * A described list shaped like a message's properties and application-properties: strings (non-ASCII too),
     * symbols, binary, a map and an array, read back as raw bytes into a reusable holder.
     */
    private void nestedStructureWithStringsAsBytes() {
        AmqpWriter w = writer.clear();
        w.writeDescriptor(DESCRIPTOR);
        w.startList();
        w.writeString("amqp://localhost/queue/requests");
        w.writeSymbol(CONTENT_TYPE);
        w.writeString("gr\u00fc\u00dfe \ud83d\ude00");
        w.writeBinary(CONTENT_TYPE.bytes());
        w.startMap();
        w.writeString("x-header");
        w.writeString("value");
        w.writeString("x-count");
        w.writeLong(123_456_789_012L);
        w.endMap();
        w.startArray(FormatCode.SYM8);
        w.writeSymbol(CONTENT_TYPE);
        w.writeSymbol(DESCRIPTOR);
        w.endArray();
        w.endList();

        AmqpReader r = reader.wrap(w.array(), w.start(), w.length());
        r.next();
        long sum = r.descriptorIs(DESCRIPTOR) ? 1 : 0;
        r.enter();
        r.next(); // the descriptor
        r.next();
        r.enter();
        while (r.hasNext()) {
            switch (r.next()) {
                case FormatCode.MAP8:
                case FormatCode.ARRAY8:
                    r.enter();
                    while (r.hasNext()) {
                        r.next();
                        sum += r.isVariable() ? text.read(r).length() : r.getLong();
                    }
                    r.exit();
                    break;
                default:
                    sum += text.read(r).length() + (r.contentEquals(CONTENT_TYPE) ? 1000 : 0);
            }
        }
        r.exit();
        r.exit();
        checksum += sum;
    }

    @Test
    void encodingAndDecodingANestedStructureWithStringsAsBytesAllocatesNothing() {
        Runnable loop = () -> {
            for (int i = 0; i < ITERATIONS; i++) {
                nestedStructureWithStringsAsBytes();
            }
        };
        loop.run();
        loop.run();
        long perIteration = 1 + 31 + (12 + 1000) + 12 + (12 + 1000) + (8 + 5 + 7 + 123_456_789_012L) + (12 + 15);
        assertEquals(2L * ITERATIONS * perIteration, checksum);
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
