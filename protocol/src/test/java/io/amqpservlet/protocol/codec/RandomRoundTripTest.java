package io.amqpservlet.protocol.codec;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random values of every type, written by the writer and read back by the reader (through the scanner). Seeded:
 * a failure names its seed; rerun with {@code -Damqp.seed=<seed>} to start from it.
 */
class RandomRoundTripTest {
    static final long BASE_SEED = Long.getLong("amqp.seed", 0x5EED_0001L);
    private static final int CASES = 3000;

    @Test
    void everyGeneratedValueReadsBackAsWritten() {
        BitSet seen = new BitSet(256);
        for (int i = 0; i < CASES; i++) {
            long seed = BASE_SEED + i;
            RandomValues values = new RandomValues(seed, RandomValues.Profile.EVERYTHING);
            AmqpValue v = values.value();
            byte[] bytes = ValueWriter.encode(v, values.random(), ValueWriter.ArrayCodes.ANY);
            AmqpValue back;
            try {
                back = ValueCollector.decodeOne(bytes);
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ": " + v + "\n" + HexFormat.of().formatHex(bytes), e);
            }
            assertEquals(v, back, () -> "seed " + seed + ": " + ValueDiff.first(v, back));
            recordFormatCodes(bytes, seen);
        }
        // Every format code of AMQP 1.0 §1.6 appeared, as a constructor or as an array's element constructor.
        BitSet missing = new BitSet(256);
        for (int c = 1; c < 256; c++) {
            if (FormatCode.isValid(c) && !seen.get(c)) {
                missing.set(c);
            }
        }
        StringBuilder names = new StringBuilder();
        missing.stream().forEach(c -> names.append(FormatCode.name(c)).append(' '));
        assertEquals("", names.toString().trim(), "format codes the random values never produced");
    }

    private static void recordFormatCodes(byte[] bytes, BitSet seen) {
        new AmqpScanner().scan(bytes, 0, bytes.length, new AmqpHandler() {
            private void see(AmqpReader r) {
                seen.set(r.formatCode());
            }

            @Override
            public void onScalar(AmqpReader r) {
                see(r);
            }

            @Override
            public boolean onListStart(AmqpReader r) {
                see(r);
                return true;
            }

            @Override
            public boolean onMapStart(AmqpReader r) {
                see(r);
                return true;
            }

            @Override
            public boolean onArrayStart(AmqpReader r) {
                see(r);
                seen.set(r.arrayElementCode());
                return true;
            }
        });
    }
}
