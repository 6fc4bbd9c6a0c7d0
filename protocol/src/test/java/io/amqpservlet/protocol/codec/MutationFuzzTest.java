package io.amqpservlet.protocol.codec;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Valid encodings of random values, randomly damaged (seeded): walking them whole with the scanner, reading every
 * scalar with its getter, may only succeed or throw a {@link DecodeException} subclass; never an exception of the
 * JDK (index out of bounds, negative array size, out of memory) nor an IllegalStateException from the reader's
 * own navigation. A failure names its seed; {@code -Damqp.seed=<seed>} starts the run from it.
 */
class MutationFuzzTest {
    private static final int VALUES = 1000;
    private static final int MUTATIONS_PER_VALUE = 12;

    @Test
    void damagedEncodingsOnlyEverFailWithDecodeExceptions() {
        int failures = 0;
        int walks = 0;
        // Tight limits as well as the defaults: the limit checks must hold on damaged input too.
        AmqpScanner[] scanners = {new AmqpScanner(), new AmqpScanner(new AmqpReader(new DecoderLimits(3, 40)))};
        for (int i = 0; i < VALUES; i++) {
            long seed = RandomRoundTripTest.BASE_SEED + 1_000_000 + i;
            RandomValues values = new RandomValues(seed, RandomValues.Profile.EVERYTHING);
            Random random = values.random();
            byte[] valid = ValueWriter.encode(values.value(), random, ValueWriter.ArrayCodes.ANY);
            for (int m = 0; m < MUTATIONS_PER_VALUE; m++) {
                byte[] damaged = mutate(valid, random);
                for (AmqpScanner scanner : scanners) {
                    walks++;
                    try {
                        scanner.scan(damaged, 0, damaged.length, new ValueCollector());
                    } catch (DecodeException expected) {
                        failures++;
                    } catch (RuntimeException | Error e) {
                        throw new AssertionError("seed " + seed + " mutation " + m + ": " + e + "\n"
                                + HexFormat.of().formatHex(damaged), e);
                    }
                }
            }
        }
        // The mutations must mostly produce faults, or this test would be walking valid input only.
        assertTrue(failures > walks / 2, failures + " of " + walks + " damaged encodings failed to decode");
    }

    private static byte[] mutate(byte[] valid, Random r) {
        byte[] b = valid.clone();
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits && b.length > 0; e++) {
            int at = r.nextInt(b.length);
            switch (r.nextInt(7)) {
                case 0:
                    b[at] = (byte) r.nextInt(256);
                    break;
                case 1:
                    b[at] ^= (byte) (1 << r.nextInt(8));
                    break;
                case 2:
                    b = Arrays.copyOf(b, at); // truncate
                    break;
                case 3: {
                    // A size or count field made huge or zero: 0xFF or 0x00 runs.
                    byte v = r.nextBoolean() ? (byte) 0xFF : 0;
                    for (int k = at; k < Math.min(b.length, at + 1 + r.nextInt(4)); k++) {
                        b[k] = v;
                    }
                    break;
                }
                case 4: {
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte) r.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                    break;
                }
                case 5: {
                    byte[] c = new byte[b.length - 1];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                    b = c;
                    break;
                }
                default:
                    // A format code swapped for another valid one of a different layout.
                    b[at] = (byte) new int[] {0x00, 0x40, 0x45, 0x56, 0x73, 0x98, 0xA1, 0xB1, 0xC0, 0xC1, 0xD0,
                        0xE0, 0xF0}[r.nextInt(13)];
            }
        }
        return b;
    }
}
