package io.amqpservlet.connector.engine;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.connector.WrittenStreamCheck;
import io.amqpservlet.protocol.AllocationBudget;

/**
 * Coverage-guided fuzzing of an acceptor engine's input path (docs/fuzzing.md): any bytes from a peer, from the
 * very first byte or after a valid handshake, go through {@link Engine#ingest} in slices, then time passes. The
 * contract (docs/connector.md): {@code ingest} never throws for peer bytes, whatever arrives earns at most an
 * {@code amqp:} error and the end of the connection; what the engine writes back is a well-formed stream
 * ({@link WrittenStreamCheck}); and memory follows the bytes that arrived, not the sizes they announce
 * ({@link AllocationBudget}).
 *
 * <p>{@code mvn verify} replays the committed inputs under {@code EngineFuzzTestInputs/}; {@code load-tests/bench
 * fuzz} runs the fuzzer.
 */
class EngineFuzzTest {
    private static final byte[] NOTHING = new byte[0];
    private static final long START_MILLIS = 1_000;

    @FuzzTest(maxDuration = "5m")
    void acceptorTakesAnyBytesFromTheFirstByte(byte[] input) {
        ingestChecked(NOTHING, input, 0);
    }

    /** The first byte picks one of the {@link ClientPrefixes}; the rest follows it. */
    @FuzzTest(maxDuration = "5m")
    void acceptorTakesAnyBytesAfterAValidHandshake(byte[] input) {
        if (input.length == 0) {
            return;
        }
        ingestChecked(ClientPrefixes.get((input[0] & 0xFF) % ClientPrefixes.COUNT), input, 1);
    }

    private static void ingestChecked(byte[] prefix, byte[] input, int from) {
        WrittenStreamCheck[] written = new WrittenStreamCheck[1];
        AllocationBudget.check("Engine.ingest", prefix.length + input.length - from, () -> {
            Engine engine = new Engine(FuzzedEngineHandler.config(), new FuzzedEngineHandler());
            written[0] = new WrittenStreamCheck();
            engine.ingest(prefix, 0, prefix.length, START_MILLIS);
            written[0].drain(engine);
            feed(engine, input, from, written[0]);
        });
        written[0].check();
    }

    /**
     * The bytes after {@code from}, in slices whose size the last byte picks (1 to 2,041 bytes), so frames split
     * across reads at every place; then time passes beyond the idle timeout, which must end any connection.
     */
    private static void feed(Engine engine, byte[] input, int from, WrittenStreamCheck written) {
        int length = input.length - from;
        int sliceBytes = length <= 0 ? 1 : 1 + (input[input.length - 1] & 0xFF) * 8;
        long now = START_MILLIS;
        for (int at = from; at < input.length && !engine.isDone(); at += sliceBytes) {
            now++;
            engine.ingest(input, at, Math.min(sliceBytes, input.length - at), now);
            engine.tick(now);
            written.drain(engine);
        }
        engine.tick(now + 1_000);
        engine.tick(now + 120_000);
        written.drain(engine);
    }
}
