package io.amqpservlet.bench.codec;

import io.amqpservlet.protocol.AllocationMeter;
import io.amqpservlet.protocol.text.KnownStrings;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs every codec benchmark method once per codec, outside JMH, so that {@code mvn verify} catches a benchmark
 * that does the wrong work. Each benchmark's setup also decodes every codec's encoding with every decoder.
 */
class CodecBenchmarksTest {
    private static final String[] CODECS = {"ours", "protonj2", "protonj"};

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void listOfIntsAndUuidCodecsAgree() {
        ListOfIntsAndUuidBenchmark b = new ListOfIntsAndUuidBenchmark();
        b.setup();
        long expected = 45_000L ^ 0xd1b8a7b62f7e4d0cL ^ 0x9a511f0e6e2b3c4dL;
        assertEquals(expected, b.listOfIntsAndUuid_ours_decode());
        assertEquals(expected, b.listOfIntsAndUuid_protonj2_decode());
        assertEquals(expected, b.listOfIntsAndUuid_protonj_decode());
        assertEquals(b.encodedInput("ours").length, b.listOfIntsAndUuid_ours_encode());
        assertEquals(b.encodedInput("protonj2").length, b.listOfIntsAndUuid_protonj2_encode());
        assertEquals(b.encodedInput("protonj").length, b.listOfIntsAndUuid_protonj_encode());
    }

    @Test
    void oursEncodesListOfIntsAndUuidInTheSmallestForm() {
        ListOfIntsAndUuidBenchmark b = new ListOfIntsAndUuidBenchmark();
        b.setup();
        // AMQP 1.0 §1.6: list8 (0xc0, size, count); 0 as smallint (0x54 00); the others as int (0x71 + 4 bytes);
        // then uuid (0x98 + 16 bytes). Size = count byte + 2 + 9 * 5 + 17 = 65.
        byte[] expected = {
            (byte) 0xc0, 65, 11,
            0x54, 0,
            0x71, 0, 0, 0x03, (byte) 0xe8,
            0x71, 0, 0, 0x07, (byte) 0xd0,
            0x71, 0, 0, 0x0b, (byte) 0xb8,
            0x71, 0, 0, 0x0f, (byte) 0xa0,
            0x71, 0, 0, 0x13, (byte) 0x88,
            0x71, 0, 0, 0x17, 0x70,
            0x71, 0, 0, 0x1b, 0x58,
            0x71, 0, 0, 0x1f, 0x40,
            0x71, 0, 0, 0x23, 0x28,
            (byte) 0x98, (byte) 0xd1, (byte) 0xb8, (byte) 0xa7, (byte) 0xb6, 0x2f, 0x7e, 0x4d, 0x0c,
            (byte) 0x9a, 0x51, 0x1f, 0x0e, 0x6e, 0x2b, 0x3c, 0x4d,
        };
        assertArrayEquals(expected, b.encodedInput("ours"));
    }

    @Test
    void requestMessageCodecsAgree() {
        RequestMessageBenchmark b = new RequestMessageBenchmark();
        b.setup();
        b.requestMessage_ours_decode().verify("ours");
        b.requestMessage_ours_decodeCached().verify("ours cached");
        // The cached decode hands out the shared instances for the method, content-type and header names.
        DecodedRequest cached = b.requestMessage_ours_decodeCached();
        assertSame(KnownStrings.CACHE.lookup(ascii("POST"), 0, 4), cached.subject);
        assertSame(KnownStrings.CACHE.lookup(ascii("application/json"), 0, 16), cached.contentType);
        assertSame(KnownStrings.CACHE.lookup(ascii("user-agent"), 0, 10), cached.headerNames[1]);
        b.requestMessage_ours_scan().verify("ours scan");
        b.requestMessage_protonj2_decode().verify("protonj2");
        b.requestMessage_protonj_decode().verify("protonj");
        assertEquals(b.encodedInput("ours").length, b.requestMessage_ours_encode());
        byte[] plain = b.encodedInput("ours");
        assertEquals(plain.length, b.requestMessage_ours_encodePreencoded());
        assertArrayEquals(plain, b.encodedOutput(), "pre-encoded names give the same bytes");
        assertEquals(b.encodedInput("protonj2").length, b.requestMessage_protonj2_encode());
        assertEquals(b.encodedInput("protonj").length, b.requestMessage_protonj_encode());
    }

    @Test
    void transferFrameCodecsAgree() {
        TransferFrameBenchmark b = new TransferFrameBenchmark();
        b.setup();
        DecodedRequest scratch = new DecodedRequest();
        b.transferFrame_ours_decode().verify("ours", b.encodedInput("ours"), scratch);
        b.transferFrame_protonj2_decode().verify("protonj2", b.encodedInput("protonj2"), scratch);
        b.transferFrame_protonj_decode().verify("protonj", b.encodedInput("protonj"), scratch);
        for (String codec : CODECS) {
            byte[] frame = b.encodedInput(codec);
            // AMQP 1.0 §2.3.1: size, doff 2, type 0, channel 0.
            int size = ((frame[0] & 0xFF) << 24) | ((frame[1] & 0xFF) << 16) | ((frame[2] & 0xFF) << 8) | (frame[3] & 0xFF);
            assertEquals(frame.length, size, codec);
            assertArrayEquals(new byte[] {2, 0, 0, 0}, java.util.Arrays.copyOfRange(frame, 4, 8), codec);
        }
        assertEquals(b.encodedInput("ours").length, b.transferFrame_ours_encode());
        assertEquals(b.encodedInput("protonj2").length, b.transferFrame_protonj2_encode());
        assertEquals(b.encodedInput("protonj").length, b.transferFrame_protonj_encode());
    }

    @Test
    void oursAllocatesNothingInTheZeroGarbagePaths() {
        ListOfIntsAndUuidBenchmark list = new ListOfIntsAndUuidBenchmark();
        list.setup();
        RequestMessageBenchmark request = new RequestMessageBenchmark();
        request.setup();
        TransferFrameBenchmark transfer = new TransferFrameBenchmark();
        transfer.setup();
        assertEquals(0, allocatedPerRun(list::listOfIntsAndUuid_ours_encode), "list encode");
        assertEquals(0, allocatedPerRun(list::listOfIntsAndUuid_ours_decode), "list decode");
        assertEquals(0, allocatedPerRun(request::requestMessage_ours_encode), "request encode");
        assertEquals(0, allocatedPerRun(request::requestMessage_ours_encodePreencoded), "request encode, pre-encoded");
        assertEquals(0, allocatedPerRun(request::requestMessage_ours_scan), "request scan");
        assertEquals(0, allocatedPerRun(transfer::transferFrame_ours_encode), "transfer encode");
        assertEquals(0, allocatedPerRun(transfer::transferFrame_ours_decode), "transfer decode");
        long plain = allocatedPerRun(request::requestMessage_ours_decode);
        long cached = allocatedPerRun(request::requestMessage_ours_decodeCached);
        assertTrue(plain > 0, "the String decode allocates its Strings");
        assertTrue(cached > 0 && cached < plain, "the cached decode allocates only the per-request values: " + cached
                + " vs " + plain);
    }

    /**
     * Bytes allocated by 10,000 runs after 20,000 warm-up runs: the fewest over up to five measurements, so that a
     * one-off allocation by the JIT (a recompilation while the loop runs) does not count, while an allocation in
     * the benchmark itself, which happens on every run, still does.
     */
    private static long allocatedPerRun(Runnable op) {
        Runnable warmUp = () -> {
            for (int i = 0; i < 20_000; i++) {
                op.run();
            }
        };
        Runnable measured = () -> {
            for (int i = 0; i < 10_000; i++) {
                op.run();
            }
        };
        return AllocationMeter.bytesAllocatedBy(warmUp, measured);
    }
}
