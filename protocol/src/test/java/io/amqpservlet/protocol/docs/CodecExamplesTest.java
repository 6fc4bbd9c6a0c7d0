package io.amqpservlet.protocol.docs;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.TruncatedEncodingException;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.json.AmqpToJson;
import io.amqpservlet.protocol.json.JsonForm;
import io.amqpservlet.protocol.json.JsonToAmqp;
import io.amqpservlet.protocol.types.Symbol;
import io.amqpservlet.protocol.value.UnsignedInteger;
import io.amqpservlet.protocol.value.ValueDecoder;
import io.amqpservlet.protocol.value.ValueEncoder;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The examples of docs/protocol.md, kept compiling and correct. Keep the two in step. */
class CodecExamplesTest {

    // docs/protocol.md: "Encode with backfill"
    static int encodeListOfIntsAndUuid(AmqpWriter writer) {
        writer.clear();
        writer.startList();                      // reserves list8 size and count
        for (int i = 0; i < 10; i++) {
            writer.writeInt(i * 1000);           // smallint or int, whichever is smaller
        }
        writer.writeUuid(0xd1b8a7b62f7e4d0cL, 0x9a511f0e6e2b3c4dL);
        writer.endList();                        // backfills; widens to list32 only if needed
        return writer.length();                  // bytes are writer.array()[writer.start(), writer.position())
    }

    // docs/protocol.md: "Decode with the cursor"
    static long sumInts(AmqpReader reader, byte[] bytes, int length) {
        reader.wrap(bytes, 0, length);
        reader.next();                           // positioned on the list, nothing decoded yet
        reader.enter();
        long sum = 0;
        while (reader.hasNext()) {
            reader.next();
            if (reader.type() == AmqpType.INT) {
                sum += reader.getInt();          // accepts smallint and int alike
            }
        }
        reader.exit();
        return sum;
    }

    // docs/protocol.md: "Read lazily, skip cheaply"
    static boolean hasCapability(AmqpReader reader, Symbol wanted) {
        // reader is on an array of symbols; compares bytes, never makes a String
        reader.enter();
        boolean found = false;
        while (reader.hasNext()) {
            reader.next();
            if (reader.contentEquals(wanted)) {
                found = true;
                break;
            }
        }
        reader.exit();                           // skips the elements not read, in O(1)
        return found;
    }

    // docs/protocol.md: "Values as JSON and as Java objects"
    static String typedValues() {
        AmqpWriter writer = new AmqpWriter();
        ValueEncoder.encode(Map.of("consumer_count", UnsignedInteger.of(3)), writer);   // Java → AMQP, exact types
        String plain = AmqpToJson.toJson(writer.array(), 0, writer.length(), JsonForm.PLAIN);    // {"consumer_count":3}
        String tagged = AmqpToJson.toJson(writer.array(), 0, writer.length(), JsonForm.TAGGED);  // {"consumer_count":{"$uint":3}}
        byte[] again = JsonToAmqp.toAmqp(tagged);                                        // the same AMQP value
        AmqpReader reader = new AmqpReader().wrap(again, 0, again.length);
        reader.next();
        Object value = ValueDecoder.decode(reader, 1000);                                // {consumer_count=3}, a uint
        return plain + " " + tagged + " " + value;
    }

    @Test
    void typedValuesExample() {
        assertEquals("{\"consumer_count\":3} {\"consumer_count\":{\"$uint\":3}} {consumer_count=3}", typedValues());
    }

    @Test
    void encodeWithBackfillAndDecodeWithCursor() {
        AmqpWriter writer = new AmqpWriter();
        int length = encodeListOfIntsAndUuid(writer);
        assertEquals(FormatCode.LIST8, writer.array()[0] & 0xFF);
        assertEquals(45000, sumInts(new AmqpReader(), writer.array(), length));
    }

    @Test
    void lazyCapabilityLookup() {
        AmqpWriter writer = new AmqpWriter();
        writer.startArray(FormatCode.SYM8);
        writer.writeSymbol(Symbol.of("shared-subs"));
        writer.writeSymbol(Symbol.of("ANONYMOUS-RELAY"));
        writer.writeSymbol(Symbol.of("DELAYED_DELIVERY"));
        writer.endArray();
        AmqpReader reader = new AmqpReader().wrap(writer.array(), 0, writer.length());
        reader.next();
        assertTrue(hasCapability(reader, Symbol.of("ANONYMOUS-RELAY")));
        assertEquals(false, reader.hasNext());
    }

    @Test
    void fieldHoldersKeepBytesAndMakeStringsOnlyWhenAsked() {
        AmqpWriter writer = new AmqpWriter();
        writer.writeString("/orders/42");
        AmqpReader reader = new AmqpReader().wrap(writer.array(), 0, writer.length());
        reader.next();
        MutableBytes to = new MutableBytes();
        to.read(reader);                          // copies bytes into a reusable array; validates UTF-8
        assertTrue(to.contentEquals("/orders/42")); // no String made
        assertEquals("/orders/42", to.toString());  // made now, once
    }

    @Test
    void errorsSayWhatAndWhere() {
        byte[] bytes = {(byte) 0xC0, 10, 3, 0x54}; // list8 claiming 10 bytes, 4 present
        AmqpReader reader = new AmqpReader(new DecoderLimits(16, 1000));
        DecodeException e = assertThrows(TruncatedEncodingException.class, () -> reader.wrap(bytes, 0, 4).next());
        assertEquals(0, e.offset());
        assertTrue(e.getMessage().startsWith("list8 needs 12 bytes but only 4 remain"), e.getMessage());
    }
}
