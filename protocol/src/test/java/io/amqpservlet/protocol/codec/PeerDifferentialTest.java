package io.amqpservlet.protocol.codec;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HexFormat;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Differential tests against two independent AMQP 1.0 codecs, Qpid protonj2 1.1.0 and Qpid proton-j 0.35.0:
 * the same random values (every type, width and nesting the peer can represent) are encoded by our writer and
 * decoded by the peer, and encoded by the peer and decoded by our reader, and both sides must agree with the
 * generated model. Seeded: a failure names its seed; {@code -Damqp.seed=<seed>} starts the run from it.
 */
class PeerDifferentialTest {
    private static final int CASES = 1500;

    /** One peer codec, as functions over its Java objects, and what it can represent. */
    record Peer(String name, Function<Object, byte[]> encode, Function<byte[], Object> decode,
                Function<AmqpValue, Object> toPeer, Function<Object, AmqpValue> fromPeer,
                UnaryOperator<AmqpValue> comparable, RandomValues.Profile decodes, RandomValues.Profile encodes,
                ValueWriter.ArrayCodes arrayCodes) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Peer> peers() {
        return Stream.of(
                // protonj2 reads: chars as Java chars (no code points above U+FFFF); no arrays of null elements
                // ("count greater than the amount of data available"); empty described arrays and empty arrays
                // of arrays come back without an element type. It reads zero-width element codes (uint0,
                // true). It cannot write described arrays ("Do not know how to write") nor empty arrays of arrays.
                new Peer("protonj2", ProtonJ2Values::encode, ProtonJ2Values::decode, ProtonJ2Values::toPeer,
                        ProtonJ2Values::fromPeer, ProtonJ2Values::comparable,
                        new RandomValues.Profile(false, true, false, false, true, true, false, 4),
                        new RandomValues.Profile(false, true, false, false, true, false, false, 4),
                        ValueWriter.ArrayCodes.ANY),
                // proton-j reads as protonj2 does, except: only ulong and symbol descriptors, no described value
                // that is itself described, no array of zero-width elements. It cannot write described arrays
                // (NullPointerException in its array encoder).
                new Peer("proton-j", ProtonJValues::encode, ProtonJValues::decode, ProtonJValues::toPeer,
                        ProtonJValues::fromPeer, UnaryOperator.identity(),
                        new RandomValues.Profile(false, false, false, false, true, true, false, 4),
                        new RandomValues.Profile(false, false, false, false, true, false, false, 4),
                        ValueWriter.ArrayCodes.COMPACT));
    }

    @ParameterizedTest
    @MethodSource("peers")
    void peerDecodesWhatOurWriterEncodes(Peer peer) {
        for (int i = 0; i < CASES; i++) {
            long seed = RandomRoundTripTest.BASE_SEED + i;
            RandomValues values = new RandomValues(seed, peer.decodes());
            AmqpValue v = values.value();
            byte[] bytes = ValueWriter.encode(v, values.random(), peer.arrayCodes());
            AmqpValue got;
            try {
                got = peer.fromPeer().apply(peer.decode().apply(bytes));
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError(peer + " seed " + seed + " failed to decode " + v + "\n"
                        + HexFormat.of().formatHex(bytes), e);
            }
            AmqpValue expected = peer.comparable().apply(v);
            AmqpValue actual = peer.comparable().apply(got);
            assertEquals(expected, actual, () -> peer + " seed " + seed + ": " + ValueDiff.first(expected, actual));
        }
    }

    @ParameterizedTest
    @MethodSource("peers")
    void ourReaderDecodesWhatThePeerEncodes(Peer peer) {
        int peerCannotWrite = 0;
        for (int i = 0; i < CASES; i++) {
            long seed = RandomRoundTripTest.BASE_SEED + i;
            RandomValues values = new RandomValues(seed, peer.encodes());
            AmqpValue v = values.value();
            byte[] bytes;
            try {
                bytes = peer.encode().apply(peer.toPeer().apply(v));
            } catch (RuntimeException e) {
                // The peer's encoder cannot write this value (see peers()): nothing to compare.
                peerCannotWrite++;
                continue;
            }
            AmqpValue got;
            try {
                got = ValueCollector.decodeOne(bytes);
            } catch (RuntimeException e) {
                throw new AssertionError(peer + " seed " + seed + ": our reader failed on " + v + "\n"
                        + HexFormat.of().formatHex(bytes), e);
            }
            AmqpValue expected = peer.comparable().apply(v);
            AmqpValue actual = peer.comparable().apply(got);
            assertEquals(expected, actual, () -> peer + " seed " + seed + ": " + ValueDiff.first(expected, actual));
        }
        // Most values must have been compared: a peer that could write almost nothing would prove nothing.
        assertTrue(peerCannotWrite < CASES / 3, peer + " could not write " + peerCannotWrite + " of " + CASES + " values");
    }
}
