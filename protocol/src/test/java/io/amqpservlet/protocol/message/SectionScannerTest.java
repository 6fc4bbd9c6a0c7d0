package io.amqpservlet.protocol.message;

import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.types.Symbol;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scanner finds the same sections and data bytes however the message is split into slices. */
class SectionScannerTest {

    private static final class Recorder implements SectionScanner.Listener {
        final List<MessageSection> sections = new ArrayList<>();
        final List<Long> positions = new ArrayList<>();
        final ByteArrayOutputStream data = new ByteArrayOutputStream();

        @Override
        public void onSection(MessageSection section, long position) {
            sections.add(section);
            positions.add(position);
        }

        @Override
        public void onData(byte[] bytes, int offset, int length) {
            data.write(bytes, offset, length);
        }
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static byte[] fullMessage(byte[] first, byte[] second) {
        AmqpWriter out = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(out)
                .header(true, 4, 1000, false, 2)
                .startMessageAnnotations().annotation(Symbol.of("x-opt-a"), "b").endAnnotations()
                .startProperties().messageId("m1").to("/x").subject("POST").replyTo("r").endProperties()
                .startApplicationProperties().put("h", "v").put("n", 7).endApplicationProperties()
                .data(first, 0, first.length)
                .data(second, 0, second.length)
                .startFooter().annotation(Symbol.of("f"), 1).endAnnotations();
        int n = m.end();
        byte[] whole = new byte[n];
        System.arraycopy(out.array(), 0, whole, 0, n);
        return whole;
    }

    @Test
    void findsSectionsAndDataAtEverySliceSize() {
        byte[] first = bytes(200, 1);   // vbin8
        byte[] second = bytes(700, 2);  // vbin32
        byte[] message = fullMessage(first, second);
        MessageView view = new MessageView().wrap(message, 0, message.length);
        byte[] expectedData = new byte[900];
        System.arraycopy(first, 0, expectedData, 0, 200);
        System.arraycopy(second, 0, expectedData, 200, 700);

        SectionScanner scanner = new SectionScanner();
        for (int slice = 1; slice <= message.length; slice++) {
            scanner.reset();
            Recorder r = new Recorder();
            for (int at = 0; at < message.length; at += slice) {
                scanner.feed(message, at, Math.min(slice, message.length - at), r);
            }
            assertTrue(scanner.atSectionBoundary(), "slice " + slice);
            assertEquals(List.of(MessageSection.HEADER, MessageSection.MESSAGE_ANNOTATIONS, MessageSection.PROPERTIES,
                    MessageSection.APPLICATION_PROPERTIES, MessageSection.DATA, MessageSection.DATA,
                    MessageSection.FOOTER), r.sections, "slice " + slice);
            assertEquals(view.sectionStart(MessageSection.PROPERTIES), r.positions.get(2).intValue());
            assertEquals(view.sectionStart(MessageSection.DATA), r.positions.get(4).intValue());
            assertEquals(view.sectionStart(MessageSection.FOOTER), r.positions.get(6).intValue());
            assertArrayEquals(expectedData, r.data.toByteArray(), "slice " + slice);
            assertEquals(message.length, scanner.position());
        }
    }

    @Test
    void stepsOverAnAmqpValueHoldingADescribedList() {
        AmqpWriter out = new AmqpWriter();
        MessageWriter m = new MessageWriter().wrap(out).startProperties().subject("PUT").endProperties()
                .startAmqpValue();
        out.writeDescriptor(0x1234L);
        out.startList();
        out.writeString("inside");
        out.writeLong(-5);
        out.endList();
        int n = m.end();
        SectionScanner scanner = new SectionScanner();
        for (int slice = 1; slice <= n; slice++) {
            scanner.reset();
            Recorder r = new Recorder();
            for (int at = 0; at < n; at += slice) {
                scanner.feed(out.array(), at, Math.min(slice, n - at), r);
            }
            assertTrue(scanner.atSectionBoundary());
            assertEquals(List.of(MessageSection.PROPERTIES, MessageSection.AMQP_VALUE), r.sections);
            assertEquals(0, r.data.size());
        }
    }

    @Test
    void readsSymbolicDescriptors() {
        byte[] name = "amqp:data:binary".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        m.write(0x00);
        m.write(0xa3);
        m.write(name.length);
        m.write(name, 0, name.length);
        m.write(0xa0);
        m.write(3);
        m.write(new byte[] {7, 8, 9}, 0, 3);
        byte[] message = m.toByteArray();
        Recorder r = new Recorder();
        SectionScanner scanner = new SectionScanner();
        for (byte b : message) {
            scanner.feed(new byte[] {b}, 0, 1, r);
        }
        assertEquals(List.of(MessageSection.DATA), r.sections);
        assertArrayEquals(new byte[] {7, 8, 9}, r.data.toByteArray());
    }

    @Test
    void reportsBytesItCannotStepOver() {
        SectionScanner scanner = new SectionScanner();
        Recorder r = new Recorder();
        InvalidEncodingException e = assertThrows(InvalidEncodingException.class,
                () -> scanner.feed(new byte[] {0x00, 0x53, 0x75, (byte) 0xa1, 1, 'x'}, 0, 6, r));
        assertTrue(e.getMessage().contains("data section holds a binary"), e.getMessage());
        scanner.reset();
        assertThrows(InvalidEncodingException.class, () -> scanner.feed(new byte[] {0x41}, 0, 1, r));
        scanner.reset();
        assertThrows(InvalidEncodingException.class,
                () -> scanner.feed(new byte[] {0x00, 0x53, 0x10, 0x45}, 0, 4, r)); // open's code: not a section
        scanner.reset();
        scanner.feed(new byte[] {0x00, 0x53, 0x75, (byte) 0xb0, 0, 0}, 0, 6, r);
        assertTrue(!scanner.atSectionBoundary()); // a message that ended here would be truncated
    }
}
