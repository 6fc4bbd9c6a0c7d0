package io.amqpservlet.protocol.codec;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A described value counts as one element of its compound however its descriptor is written (AMQP 1.0 §1.2: the
 * descriptor is part of the constructor), including descriptors that are themselves compound or described.
 */
class AmqpWriterDescribedTest {
    private final AmqpWriter w = new AmqpWriter();

    private AmqpValue decoded() {
        return ValueCollector.decodeOne(w.toByteArray());
    }

    private static AmqpValue.ListV list(AmqpValue... es) {
        return new AmqpValue.ListV(List.of(es));
    }

    @Test
    void describedValueWithAListDescriptorHoldingADescribedValueIsOneElement() {
        w.startList();
        w.startDescribed();
        w.startList();               // the descriptor: a list ...
        w.writeDescriptor(1);        // ... holding a described value
        w.writeNull();
        w.endList();
        w.writeInt(7);               // the described value
        w.endList();
        assertEquals(list(new AmqpValue.Described(list(new AmqpValue.Described(new AmqpValue.ULong(1), AmqpValue.NULL)),
                new AmqpValue.I32(7))), decoded());
    }

    @Test
    void describedValueWhoseDescriptorIsDescribedIsOneElement() {
        w.startList();
        w.startDescribed();
        w.writeDescriptor(5);        // the descriptor is described(5, null)
        w.writeNull();
        w.writeInt(7);
        w.writeInt(8);               // a second element of the list
        w.endList();
        assertEquals(list(new AmqpValue.Described(new AmqpValue.Described(new AmqpValue.ULong(5), AmqpValue.NULL),
                new AmqpValue.I32(7)), new AmqpValue.I32(8)), decoded());
    }

    @Test
    void describedValueOfADescribedValueIsOneElement() {
        w.startList();
        w.writeDescriptor(1);
        w.writeDescriptor(2);
        w.writeNull();
        w.writeInt(8);
        w.endList();
        assertEquals(list(new AmqpValue.Described(new AmqpValue.ULong(1),
                new AmqpValue.Described(new AmqpValue.ULong(2), AmqpValue.NULL)), new AmqpValue.I32(8)), decoded());
    }
}
