package io.amqpservlet.protocol.message;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.codec.InvalidEncodingException;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Coverage-guided fuzzing of the streaming {@link SectionScanner} (docs/fuzzing.md): any bytes as a message, fed
 * whole and fed in slices of 1 to 16 bytes (the last input byte seeds the slicing). The scanner must report the
 * same sections at the same positions, the same data bytes, and the same error at the same offset however the
 * message is cut (only {@link InvalidEncodingException} is documented); and where {@link MessageView} accepts the
 * message, the scanner must find the sections the view found, and the data the view's body holds.
 */
class SectionScannerFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void findsTheSameSectionsHoweverTheMessageIsSliced(byte[] input) {
        AllocationBudget.check("SectionScanner", input.length, () -> compare(input));
    }

    private static void compare(byte[] input) {
        Scan whole = Scan.of(input, input.length, 0);
        int seed = input.length == 0 ? 0 : input[input.length - 1];
        Scan sliced = Scan.of(input, 16, seed);
        if (!whole.describe().equals(sliced.describe())) {
            throw new AssertionError("fed whole: " + whole.describe() + "\nfed in slices: " + sliced.describe());
        }
        MessageView view = new MessageView();
        try {
            view.wrap(input, 0, input.length);
        } catch (DecodeException e) {
            return;
        }
        Scan expected = Scan.fromView(view, input);
        if (!expected.describe().equals(whole.describe())) {
            throw new AssertionError("MessageView found: " + expected.describe() + "\nSectionScanner found: "
                    + whole.describe());
        }
    }

    /** What a scan found: sections and their positions, data bytes, and the error it ended with. */
    private static final class Scan implements SectionScanner.Listener {
        final List<String> sections = new ArrayList<>();
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
        String error = "";
        boolean atBoundary;

        static Scan of(byte[] input, int maxSliceBytes, int seed) {
            Scan scan = new Scan();
            SectionScanner scanner = new SectionScanner();
            SplittableRandom slices = new SplittableRandom(seed);
            try {
                for (int at = 0; at < input.length; ) {
                    int n = Math.min(input.length - at, maxSliceBytes == input.length ? maxSliceBytes
                            : 1 + slices.nextInt(maxSliceBytes));
                    scanner.feed(input, at, n, scan);
                    at += n;
                }
                scan.atBoundary = scanner.atSectionBoundary();
            } catch (InvalidEncodingException e) {
                scan.error = "error at offset " + e.offset();
            }
            return scan;
        }

        static Scan fromView(MessageView view, byte[] input) {
            Scan scan = new Scan();
            if (input.length > 4 && input[0] == 0 && input[1] == 0x53 && input[2] == 0x77 && input[3] == 0x40) {
                // The view reads a leading amqp-value null before other sections as no section (RabbitMQ's Python
                // client's body-less requests); the scanner reports every section, that one too.
                scan.onSection(MessageSection.AMQP_VALUE, 0);
            }
            for (MessageSection s : MessageSection.values()) {
                if (s.ordinal() < MessageSection.DATA.ordinal() && view.hasSection(s)) {
                    scan.onSection(s, view.sectionStart(s));
                }
            }
            BodySections body = view.body();
            for (int i = 0; i < body.count(); i++) {
                scan.onSection(body.kind(), body.sectionStart(i));
                if (body.kind() == MessageSection.DATA) {
                    scan.onData(input, body.dataOffset(i), body.dataLength(i));
                }
            }
            if (view.hasSection(MessageSection.FOOTER)) {
                scan.onSection(MessageSection.FOOTER, view.sectionStart(MessageSection.FOOTER));
            }
            scan.atBoundary = true;
            return scan;
        }

        @Override
        public void onSection(MessageSection section, long position) {
            sections.add(section + "@" + position);
        }

        @Override
        public void onData(byte[] bytes, int offset, int length) {
            data.write(bytes, offset, length);
        }

        String describe() {
            return sections + " data " + java.util.HexFormat.of().formatHex(data.toByteArray())
                    + (atBoundary ? " at a boundary" : " inside a section") + " " + error;
        }
    }
}
