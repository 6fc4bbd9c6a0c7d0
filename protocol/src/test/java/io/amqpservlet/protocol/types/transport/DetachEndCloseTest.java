package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import static io.amqpservlet.protocol.types.RoundTrip.bytes;
import static io.amqpservlet.protocol.types.RoundTrip.decode;
import static io.amqpservlet.protocol.types.RoundTrip.encode;
import static io.amqpservlet.protocol.types.RoundTrip.hex;
import static io.amqpservlet.protocol.types.RoundTrip.through;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DetachEndCloseTest {
    private static byte[] info() {
        return bytes(w -> {
            w.startMap();
            w.writeSymbol("network-host");
            w.writeString("h");
            w.endMap();
        });
    }

    @Test
    void detachRoundTripsEveryField() {
        Detach in = new Detach().handle(-1).closed(true);
        in.error().condition(ErrorConditions.LINK_DETACH_FORCED).description("gone");
        in.error().info().set(info(), 0, info().length);
        Detach out = through(in, new Detach());
        assertEquals(-1, out.handle());
        assertTrue(out.closed());
        assertTrue(out.error().is(ErrorConditions.LINK_DETACH_FORCED));
        assertEquals("gone", out.error().description().toString());
        assertArrayEquals(info(), out.error().info().toByteArray());
    }

    @Test
    void cleanEndAndCloseAreEmptyLists() {
        assertArrayEquals(hex("00 53 17 45"), encode(new End()));
        assertArrayEquals(hex("00 53 18 45"), encode(new Close()));
        assertTrue(decode(hex("00 53 17 45"), new End()).error().isNull());
        assertTrue(decode(hex("00 53 18 c0 02 01 40"), new Close()).error().isNull());
    }

    @Test
    void closeCarriesErrorCondition() {
        Close in = new Close();
        in.error().condition(ErrorConditions.CONNECTION_FRAMING_ERROR);
        // 00 53 18 c0 size 01, then the error: 00 53 1d list8 holding only the condition symbol.
        byte[] b = encode(in);
        assertEquals(0x1d, b[8], "the error descriptor follows the close list header");
        Close out = decode(b, new Close());
        assertTrue(out.error().is(ErrorConditions.CONNECTION_FRAMING_ERROR));
        assertTrue(out.error().description().isNull());
    }

    @Test
    void endWithErrorReusedForCleanEndForgetsError() {
        End reused = new End();
        End in = new End();
        in.error().condition(ErrorConditions.SESSION_UNATTACHED_HANDLE).description("d");
        decode(encode(in), reused);
        assertFalse(reused.error().isNull());
        decode(hex("00 53 17 45"), reused);
        assertTrue(reused.error().isNull());
        assertTrue(reused.error().description().isNull());
    }

    @Test
    void errorConditionAcceptsSymbolicDescriptor() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.CLOSE);
            w.startList();
            w.writeDescriptor(Symbol.of("amqp:error:list"));
            w.startList();
            w.writeSymbol(ErrorConditions.RESOURCE_LIMIT_EXCEEDED);
            w.endList();
            w.endList();
        });
        assertTrue(decode(b, new Close()).error().is(ErrorConditions.RESOURCE_LIMIT_EXCEEDED));
    }

    @Test
    void errorWithoutConditionIsRejected() {
        byte[] b = bytes(w -> {
            w.writeDescriptor(Descriptors.END);
            w.startList();
            w.writeDescriptor(Descriptors.ERROR);
            w.startList();
            w.writeNull();
            w.writeString("no condition");
            w.endList();
            w.endList();
        });
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class, () -> decode(b, new End()));
        assertTrue(e.getMessage().contains("error: mandatory field condition is null"), e.getMessage());
    }

    @Test
    void detachRequiresHandle() {
        assertThrows(InvalidEncodingException.class, () -> decode(hex("00 53 16 45"), new Detach()));
    }

    @Test
    void errorConditionTraces() {
        ErrorCondition e = new ErrorCondition().condition(ErrorConditions.NOT_FOUND).description("no node");
        assertEquals("@error(29) [condition=:amqp:not-found, description=\"no node\"]", e.toString());
    }
}
