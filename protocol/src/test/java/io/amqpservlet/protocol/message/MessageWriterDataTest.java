package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpWriter;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A data section written in pieces (startData, appendData, endData) is one section with the whole body. */
class MessageWriterDataTest {

    private static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i % 251);
        }
        return b;
    }

    @Test
    void piecesBecomeOneDataSectionThatProtonJReadsWhole() {
        byte[] whole = body(100_000);
        AmqpWriter out = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(out).startProperties().subject("200").endProperties().startData();
        m.appendData(ByteBuffer.wrap(whole, 0, 32_768));
        m.appendData(whole, 32_768, 40_000);
        m.appendData(ByteBuffer.wrap(whole, 72_768, whole.length - 72_768));
        int length = m.endData().end();

        MessageView view = new MessageView().wrap(out.array(), 0, length);
        assertEquals(1, view.body().dataSectionCount());
        assertEquals(whole.length, view.body().dataLength(0));

        // proton-j (as in Qpid JMS) keeps only the last data section of a message: one section is what it can read.
        Message decoded = Message.Factory.create();
        decoded.decode(out.array(), 0, length);
        Binary b = ((Data) decoded.getBody()).getValue();
        byte[] got = new byte[b.getLength()];
        System.arraycopy(b.getArray(), b.getArrayOffset(), got, 0, got.length);
        assertArrayEquals(whole, got);
    }

    @Test
    void aStartedSectionWithNothingAppendedIsAnEmptyDataSection() {
        AmqpWriter out = new AmqpWriter();
        int length = new MessageWriter().wrap(out).startData().endData().end();
        MessageView view = new MessageView().wrap(out.array(), 0, length);
        assertEquals(1, view.body().dataSectionCount());
        assertEquals(0, view.body().dataLength(0));
    }

    @Test
    void misuseIsRefused() {
        AmqpWriter out = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(out);
        assertThrows(IllegalStateException.class, () -> m.appendData(new byte[1], 0, 1));
        assertThrows(IllegalStateException.class, m::endData);
        m.startData();
        assertThrows(IllegalStateException.class, m::end);
    }
}
