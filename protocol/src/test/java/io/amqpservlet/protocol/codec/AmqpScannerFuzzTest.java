package io.amqpservlet.protocol.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.protocol.AllocationBudget;

/**
 * Coverage-guided fuzzing of the {@link AmqpReader}/{@link AmqpScanner} codec (docs/fuzzing.md): any bytes walked
 * as AMQP values to their end, every scalar read with the getter of its type ({@link ValueCollector}), under the
 * default limits and under tight ones (depth 3, 40 elements). Only a {@link DecodeException} may escape (never an
 * exception of the JDK or the reader's own IllegalStateException); memory follows the input, not the sizes and
 * counts it announces ({@link AllocationBudget}).
 */
class AmqpScannerFuzzTest {
    private static final DecoderLimits TIGHT = new DecoderLimits(3, 40);

    @FuzzTest(maxDuration = "5m")
    void walksAnyBytesAsAmqpValues(byte[] input) {
        AllocationBudget.check("AmqpScanner", input.length, () -> {
            walk(new AmqpScanner(), input);
            walk(new AmqpScanner(new AmqpReader(TIGHT)), input);
        });
    }

    private static void walk(AmqpScanner scanner, byte[] input) {
        try {
            scanner.scan(input, 0, input.length, new ValueCollector());
        } catch (DecodeException expected) {
            // the documented answer to bytes that are not AMQP values
        }
    }
}
