package io.amqpservlet.protocol.json;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.value.ValueDecoder;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Coverage-guided fuzzing of the AMQP↔JSON mapping (docs/fuzzing.md). Any bytes read as JSON by {@link JsonToAmqp}
 * fail with a {@link DecodeException} or become an AMQP value whose tagged JSON reads back to the same bytes; any
 * bytes read as AMQP values are written as JSON by {@link AmqpToJson} in both forms, and decoded to Java values by
 * {@link ValueDecoder}, failing with a {@link DecodeException} only, and the JSON made reads back. Memory follows
 * the input ({@link AllocationBudget}).
 */
class JsonFuzzTest {
    private static final DecoderLimits TIGHT = new DecoderLimits(6, 100);

    @FuzzTest(maxDuration = "5m")
    void readsAnyBytesAsJson(byte[] input) {
        AllocationBudget.check("JsonToAmqp", input.length, () -> {
            readBack(new JsonToAmqp(), input);
            readBack(new JsonToAmqp(TIGHT), input);
        });
    }

    private static void readBack(JsonToAmqp json, byte[] input) {
        AmqpWriter first = new AmqpWriter();
        try {
            json.write(input, 0, input.length, first);
        } catch (DecodeException expected) {
            return; // the documented answer to text that is not JSON of the mapping
        }
        byte[] amqp = first.toByteArray();
        AmqpReader reader = new AmqpReader().wrap(amqp, 0, amqp.length);
        reader.next();
        AmqpToJson tagged = new AmqpToJson(JsonForm.TAGGED, Integer.MAX_VALUE - 16).value(reader);
        AmqpWriter second = new AmqpWriter();
        // The limits that admitted the JSON admit its tagged form: it nests no deeper and no wider.
        new JsonToAmqp().write(tagged.array(), 0, tagged.length(), second);
        byte[] again = second.toByteArray();
        if (!Arrays.equals(amqp, again)) {
            throw new AssertionError("JSON → AMQP → tagged JSON → AMQP changed the value: " + HexFormat.of().formatHex(amqp)
                    + " then " + HexFormat.of().formatHex(again) + " via " + tagged);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void writesAnyAmqpValuesAsJson(byte[] input) {
        for (JsonForm form : JsonForm.values()) {
            write(input, form, DecoderLimits.DEFAULT);
            write(input, form, TIGHT);
        }
        AllocationBudget.check("ValueDecoder", input.length, () -> decode(input));
    }

    /**
     * Each value of {@code input} as JSON, within the allocation budget (each pass on its own: numbers cost a
     * String each way, so four passes and their read-backs together would exceed a budget meant for one), then
     * read back.
     */
    private static void write(byte[] input, JsonForm form, DecoderLimits limits) {
        java.util.List<byte[]> texts = new java.util.ArrayList<>();
        AllocationBudget.check("AmqpToJson", input.length, () -> {
            texts.clear();
            AmqpReader reader = new AmqpReader(limits).wrap(input, 0, input.length);
            AmqpToJson json = new AmqpToJson(form, 64 * input.length + 64);
            try {
                while (reader.hasNext()) {
                    reader.next();
                    json.clear().value(reader);
                    texts.add(Arrays.copyOf(json.array(), json.length()));
                }
            } catch (DecodeException expected) {
                // bytes that are not AMQP values, or beyond the limits
            }
        });
        for (byte[] text : texts) {
            try {
                new JsonToAmqp().write(text, 0, text.length, new AmqpWriter());
            } catch (MalformedJsonException e) {
                // Every value the reader takes reads back, a map with a key twice too (written as {"$map": ...}).
                throw new AssertionError(form + " JSON does not read back: "
                        + new String(text, java.nio.charset.StandardCharsets.UTF_8), e);
            }
        }
    }

    private static void decode(byte[] input) {
        AmqpReader reader = new AmqpReader().wrap(input, 0, input.length);
        try {
            while (reader.hasNext()) {
                reader.next();
                ValueDecoder.decode(reader, 10_000);
            }
        } catch (DecodeException expected) {
            // as above
        }
    }
}
