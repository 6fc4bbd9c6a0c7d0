package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.DescribedList;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.bytes;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PerformativesTest {
    private final Performatives performatives = new Performatives();
    private final AmqpReader reader = new AmqpReader();

    private Performative decode(byte[] body) {
        return performatives.decode(reader.wrap(body, 0, body.length));
    }

    @Test
    void dispatchesEachPerformativeToItsReusableInstance() {
        DescribedList[] samples = {
            OpenTest.full(), BeginTest.full(), AttachTest.full(), FlowTest.full(), TransferTest.full(),
            DispositionTest.full(), new Detach().handle(1), new End(), new Close(),
        };
        Performative[] expected = {
            performatives.open(), performatives.begin(), performatives.attach(), performatives.flow(),
            performatives.transfer(), performatives.disposition(), performatives.detach(), performatives.end(),
            performatives.close(),
        };
        for (int i = 0; i < samples.length; i++) {
            byte[] b = encode(samples[i]);
            Performative p = decode(b);
            assertSame(expected[i], p, samples[i].typeName());
            assertEquals(samples[i].descriptor(), p.descriptor());
            assertEquals(samples[i].toString(), p.toString());
            assertSame(p, decode(b), "the same instance every time");
        }
    }

    @Test
    void leavesReaderAtTransferPayload() {
        AmqpWriter w = new AmqpWriter();
        new Transfer().handle(0).deliveryId(0).deliveryTag(new byte[] {1}, 0, 1).encode(w);
        int payloadAt = w.length();
        w.writeBinary(new byte[] {9, 9});
        byte[] frame = w.toByteArray();
        decode(frame);
        assertEquals(payloadAt, reader.position());
    }

    @Test
    void acceptsSymbolicDescriptor() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Symbol.of("amqp:flow:list"));
            w.startList();
            w.writeNull();
            w.writeUInt(1);
            w.writeUInt(2);
            w.writeUInt(3);
            w.endList();
        });
        Performative p = decode(b);
        assertSame(performatives.flow(), p);
        assertEquals(3, performatives.flow().outgoingWindow());
    }

    @Test
    void rejectsNonPerformativeDescriptor() {
        UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class,
                () -> decode(encode(new ErrorCondition().condition(ErrorConditions.NOT_FOUND))));
        assertTrue(e.getMessage().contains("0x1d is not a performative"), e.getMessage());
        assertThrows(UnexpectedTypeException.class, () -> decode(bytes(w -> {
            w.writeDescriptor(Symbol.of("com.example:frame"));
            w.startList();
            w.endList();
        })));
    }

    @Test
    void rejectsUndescribedBody() {
        assertThrows(UnexpectedTypeException.class, () -> decode(hex("c0 01 00")));
    }

    @Test
    void rejectsWrongDescriptorForType() {
        byte[] begin = encode(BeginTest.full());
        AmqpReader r = new AmqpReader().wrap(begin, 0, begin.length);
        r.next();
        UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class, () -> new Open().decode(r));
        assertTrue(e.getMessage().contains("expected open (descriptor 0x10) but found descriptor 0x11"), e.getMessage());
    }

    @Test
    void rejectsBodyThatIsNotAList() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.OPEN);
            w.startMap();
            w.endMap();
        });
        UnexpectedTypeException e = assertThrows(UnexpectedTypeException.class, () -> decode(b));
        assertTrue(e.getMessage().contains("open must be a described list"), e.getMessage());
        byte[] s = bytes(w -> {
            w.writeDescriptor(Descriptors.CLOSE);
            w.writeString("bye");
        });
        assertThrows(UnexpectedTypeException.class, () -> decode(s));
    }
}
