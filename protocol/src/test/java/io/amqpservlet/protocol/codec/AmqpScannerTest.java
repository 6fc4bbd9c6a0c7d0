package io.amqpservlet.protocol.codec;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AmqpScannerTest {
    private final AmqpWriter writer = new AmqpWriter();
    private final AmqpScanner scanner = new AmqpScanner();

    /** Writes the events it sees as text; skips the compounds whose format code is in {@code skip}. */
    private static final class Trace implements AmqpHandler {
        final StringBuilder out = new StringBuilder();
        final AmqpType skip;

        Trace(AmqpType skip) {
            this.skip = skip;
        }

        private boolean start(String what, AmqpReader cursor) {
            boolean descend = cursor.type() != skip;
            out.append(what).append(cursor.count()).append(descend ? "(" : "~ ");
            return descend;
        }

        @Override
        public void onScalar(AmqpReader cursor) {
            switch (cursor.type()) {
                case STRING:
                case SYMBOL:
                    out.append(cursor.getString());
                    break;
                case NULL:
                    out.append("null");
                    break;
                case BOOLEAN:
                    out.append(cursor.getBoolean());
                    break;
                default:
                    out.append(cursor.getLong());
            }
            if (cursor.enclosingArrayDescriptorOffset() >= 0) {
                out.append('*');
            }
            out.append(' ');
        }

        @Override
        public boolean onListStart(AmqpReader cursor) {
            return start("list", cursor);
        }

        @Override
        public void onListEnd(AmqpReader cursor) {
            out.append(") ");
        }

        @Override
        public boolean onMapStart(AmqpReader cursor) {
            return start("map", cursor);
        }

        @Override
        public void onMapEnd(AmqpReader cursor) {
            out.append(") ");
        }

        @Override
        public boolean onArrayStart(AmqpReader cursor) {
            return start("array", cursor);
        }

        @Override
        public void onArrayEnd(AmqpReader cursor) {
            out.append(") ");
        }

        @Override
        public boolean onDescribedStart(AmqpReader cursor) {
            return start("described", cursor);
        }

        @Override
        public void onDescribedEnd(AmqpReader cursor) {
            out.append(") ");
        }
    }

    private void writeSample() {
        writer.writeDescriptor(0x70);
        writer.startList();
        writer.writeInt(1);
        writer.startMap();
        writer.writeSymbol(Symbol.of("k"));
        writer.writeString("v");
        writer.endMap();
        writer.startArray(FormatCode.INT);
        writer.writeInt(7);
        writer.writeInt(8);
        writer.endArray();
        writer.startDescribedArray(Symbol.of("d"), FormatCode.UBYTE);
        writer.writeUByte(9);
        writer.endArray();
        writer.writeNull();
        writer.endList();
        writer.writeBoolean(true);
    }

    private String trace(AmqpType skip) {
        Trace t = new Trace(skip);
        scanner.scan(writer.array(), writer.start(), writer.length(), t);
        return t.out.toString().trim();
    }

    @Test
    void reportsEveryValueDepthFirstInEncodingOrder() {
        writeSample();
        assertEquals("described2(112 list5(1 map2(k v ) array2(7 8 ) array1(9* ) null ) ) true", trace(null));
    }

    @Test
    void skipsACompoundWholeWhenTheHandlerDeclines() {
        writeSample();
        assertEquals("described2(112 list5(1 map2~ array2(7 8 ) array1(9* ) null ) ) true", trace(AmqpType.MAP));
        assertEquals("described2(112 list5(1 map2(k v ) array2~ array1~ null ) ) true", trace(AmqpType.ARRAY));
        assertEquals("described2~ true", trace(AmqpType.DESCRIBED));
    }

    @Test
    void scanNextWalksExactlyOneValueAndScanRemainingTheRestOfAnOpenCompound() {
        writer.startList();
        writer.writeInt(1);
        writer.startList();
        writer.writeInt(2);
        writer.endList();
        writer.writeInt(3);
        writer.endList();
        writer.writeInt(4);
        AmqpReader reader = scanner.reader().wrap(writer.array(), 0, writer.length());
        reader.next();
        reader.enter();
        Trace t = new Trace(null);
        scanner.scanNext(t);
        assertEquals("1 ", t.out.toString());
        scanner.scanNext(t);
        assertEquals("1 list1(2 ) ", t.out.toString());
        scanner.scanRemaining(t);
        assertEquals("1 list1(2 ) 3 ", t.out.toString());
        assertEquals(1, reader.depth(), "the compound the walk started in stays open");
        reader.exit();
        scanner.scanNext(t);
        assertEquals("1 list1(2 ) 3 4 ", t.out.toString());
        assertFalse(reader.hasNext());
        assertThrows(IllegalStateException.class, () -> scanner.scanNext(new Trace(null)));
    }

    @Test
    void walksNestingDeeperThanTheJavaStackWouldAllowARecursiveWalk() {
        int depth = 200_000;
        for (int i = 0; i < depth; i++) {
            writer.startList();
        }
        writer.writeInt(5);
        for (int i = 0; i < depth; i++) {
            writer.endList();
        }
        AmqpScanner deep = new AmqpScanner(new AmqpReader(new DecoderLimits(depth + 1, 16)));
        long[] seen = new long[2];
        deep.scan(writer.array(), 0, writer.length(), new AmqpHandler() {
            @Override
            public void onScalar(AmqpReader cursor) {
                seen[0] = cursor.getLong();
                seen[1] = cursor.depth();
            }
        });
        assertEquals(5, seen[0]);
        assertEquals(depth, seen[1]);
    }

    @Test
    void reportsTheValuesBeforeAFaultThenThrowsTheReadersException() {
        writer.startList();
        writer.writeInt(1);
        writer.writeInt(1000);
        writer.endList();
        byte[] bytes = writer.toByteArray();
        bytes[bytes.length - 5] = (byte) 0x33; // the int's constructor becomes an invalid format code
        Trace t = new Trace(null);
        assertThrows(InvalidEncodingException.class, () -> scanner.scan(bytes, 0, bytes.length, t));
        assertEquals("list2(1 ", t.out.toString());
    }

    /** Counts and sums without allocating: the scanner and reader must not allocate per value either. */
    private static final class Summer implements AmqpHandler {
        long sum;
        int compounds;

        @Override
        public void onScalar(AmqpReader cursor) {
            AmqpType t = cursor.type();
            if (t.isIntegral()) {
                sum += cursor.getLong();
            } else if (t == AmqpType.STRING) {
                sum += cursor.valueLength();
            }
        }

        @Override
        public void onListEnd(AmqpReader cursor) {
            compounds++;
        }

        @Override
        public void onMapEnd(AmqpReader cursor) {
            compounds++;
        }

        @Override
        public void onArrayEnd(AmqpReader cursor) {
            compounds++;
        }

        @Override
        public void onDescribedEnd(AmqpReader cursor) {
            compounds++;
        }
    }

    @Test
    void scanningAllocatesNothing() {
        writeSample();
        byte[] bytes = writer.toByteArray();
        Summer summer = new Summer();
        Runnable loop = () -> {
            for (int i = 0; i < 10_000; i++) {
                scanner.scan(bytes, 0, bytes.length, summer);
            }
        };
        for (int i = 0; i < 3; i++) {
            loop.run();
        }
        // Checked before measuring: the meter may run the loop more than once.
        assertEquals(30_000 * 5L, summer.compounds, "three warm-up runs");
        assertEquals(0, AllocationMeter.bytesAllocatedBy(loop));
    }
}
