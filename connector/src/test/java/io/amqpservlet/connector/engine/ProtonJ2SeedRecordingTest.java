package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.frame.FrameHeader;
import io.amqpservlet.protocol.frame.FrameReader;
import io.amqpservlet.protocol.frame.ProtocolHeader;
import io.amqpservlet.protocol.types.Descriptors;
import io.amqpservlet.protocol.types.transport.Performatives;
import org.apache.qpid.protonj2.buffer.ProtonBuffer;
import org.apache.qpid.protonj2.buffer.ProtonBufferAllocator;
import org.apache.qpid.protonj2.codec.CodecFactory;
import org.apache.qpid.protonj2.codec.Encoder;
import org.apache.qpid.protonj2.codec.EncoderState;
import org.apache.qpid.protonj2.engine.Connection;
import org.apache.qpid.protonj2.engine.EngineFactory;
import org.apache.qpid.protonj2.engine.OutgoingDelivery;
import org.apache.qpid.protonj2.engine.Sender;
import org.apache.qpid.protonj2.engine.Session;
import org.apache.qpid.protonj2.engine.sasl.client.SaslAuthenticator;
import org.apache.qpid.protonj2.engine.sasl.client.SaslCredentialsProvider;
import org.apache.qpid.protonj2.types.messaging.ApplicationProperties;
import org.apache.qpid.protonj2.types.messaging.Data;
import org.apache.qpid.protonj2.types.messaging.Properties;
import org.apache.qpid.protonj2.types.messaging.Source;
import org.apache.qpid.protonj2.types.messaging.Target;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fuzz corpora's seeds, from a real client: protonj2 1.1.0's engine connects to a
 * {@link FuzzedEngineHandler#config() fuzzed acceptor} in memory (SASL ANONYMOUS or PLAIN, open, begin, attach) and
 * sends a request with properties, application-properties and a data body, then one that spans several transfer
 * frames. Every byte protonj2 wrote is kept; replayed in one read into a new acceptor, the recording must deliver
 * both requests again, or it would seed the fuzzer with a conversation our engine does not hold.
 *
 * <p>With {@code -Dfuzz.seeds.write=true} the recordings are written into the {@code <Test>Inputs/<method>/}
 * directories of the fuzz targets (docs/fuzzing.md): the whole stream for the engine and the frame reader, the
 * frames from the first transfer for the engine after a handshake, the message alone for the message readers.
 */
class ProtonJ2SeedRecordingTest {
    private static final ProtonBufferAllocator ALLOCATOR = ProtonBufferAllocator.defaultAllocator();
    private static final Path REPOSITORY = Path.of("..");

    /** What protonj2 sent in one conversation, and the request message it sent first. */
    private record Recording(byte[] stream, byte[] request, byte[] largeRequest) {
    }

    @Test
    void protonJ2RequestsWithSaslAnonymousReachTheAcceptorWhenReplayed() throws IOException {
        Recording r = record(false, "requests");
        FuzzedEngineHandler replayed = replay(r.stream());
        assertEquals(2, replayed.messages, "both requests arrive whole");
        write(r, "protonj2-anonymous", ClientPrefixes.REQUEST_LINK);
    }

    @Test
    void protonJ2RequestsWithSaslPlainReachAStreamingLinkWhenReplayed() throws IOException {
        Recording r = record(true, "stream-uploads");
        FuzzedEngineHandler replayed = replay(r.stream());
        assertEquals(1, replayed.messages, "the one-frame request arrives whole");
        assertEquals(1, replayed.streamedMessages, "the large request arrives in chunks");
        write(r, "protonj2-plain-streaming", ClientPrefixes.STREAMING_LINK);
    }

    private static FuzzedEngineHandler replay(byte[] stream) {
        FuzzedEngineHandler handler = new FuzzedEngineHandler();
        Engine engine = new Engine(FuzzedEngineHandler.config(), handler);
        engine.ingest(stream, 0, stream.length, 1_000);
        assertTrue(engine.isOpen(), "the replayed connection is open");
        return handler;
    }

    private static Recording record(boolean plain, String linkName) {
        Engine ours = new Engine(FuzzedEngineHandler.config(), new FuzzedEngineHandler());
        org.apache.qpid.protonj2.engine.Engine peer = EngineFactory.PROTON.createEngine();
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        peer.outputConsumer(buffer -> {
            byte[] b = new byte[buffer.getReadableBytes()];
            buffer.readBytes(b, 0, b.length);
            sent.writeBytes(b);
            ours.ingest(b, 0, b.length, 1_000);
        });
        peer.saslDriver().client().setListener(new SaslAuthenticator(credentials(plain)));
        ours.start(1_000);
        Connection connection = peer.start();
        connection.setContainerId("protonj2-client").setHostname("localhost");
        connection.open();
        pump(ours, peer);
        Session session = connection.session().open();
        Sender sender = session.sender(linkName);
        sender.setSource(new Source().setAddress(linkName));
        sender.setTarget(new Target().setAddress("/echo"));
        sender.open();
        pump(ours, peer);
        assertTrue(sender.isSendable(), "the acceptor granted credit");

        byte[] request = message("req-1", "POST", "hello".getBytes());
        byte[] large = message("req-2", "PUT", pattern(2_500));
        send(sender, request);
        pump(ours, peer);
        send(sender, large);
        pump(ours, peer);
        return new Recording(sent.toByteArray(), request, large);
    }

    private static void send(Sender sender, byte[] message) {
        OutgoingDelivery d = sender.next();
        d.writeBytes(ALLOCATOR.copy(message));
    }

    private static void pump(Engine ours, org.apache.qpid.protonj2.engine.Engine peer) {
        ByteBuffer out;
        while ((out = ours.beginFlush()) != null) {
            byte[] b = new byte[out.remaining()];
            out.get(b);
            ours.endFlush();
            peer.ingest(ALLOCATOR.copy(b));
        }
    }

    /** A request as protonj2 encodes it: properties, application-properties (HTTP headers), one data section. */
    private static byte[] message(String id, String method, byte[] body) {
        Encoder encoder = CodecFactory.getDefaultEncoder();
        EncoderState state = encoder.newEncoderState();
        ProtonBuffer buffer = ALLOCATOR.allocate(body.length + 512);
        Properties p = new Properties();
        p.setMessageId(id);
        p.setTo("/echo?q=1");
        p.setSubject(method);
        p.setReplyTo("/replies");
        p.setContentType("text/plain");
        encoder.writeObject(buffer, state, p);
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("http:host", "localhost");
        headers.put("accept", "text/plain");
        headers.put("x-count", 3);
        encoder.writeObject(buffer, state, new ApplicationProperties(headers));
        encoder.writeObject(buffer, state, new Data(body));
        byte[] bytes = new byte[buffer.getReadableBytes()];
        buffer.readBytes(bytes, 0, bytes.length);
        return bytes;
    }

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    private static SaslCredentialsProvider credentials(boolean plain) {
        return new SaslCredentialsProvider() {
            @Override
            public String vhost() {
                return "localhost";
            }

            @Override
            public String username() {
                return plain ? FuzzedEngineHandler.USER : null;
            }

            @Override
            public String password() {
                return plain ? FuzzedEngineHandler.PASSWORD : null;
            }

            @Override
            public Principal localPrincipal() {
                return null;
            }
        };
    }

    /** The stream from its first transfer frame on (after the handshake our ClientPrefixes replay). */
    private static byte[] fromFirstTransfer(byte[] stream) {
        FrameReader frames = new FrameReader(FuzzedEngineHandler.MAX_FRAME_SIZE_BYTES);
        frames.useNegotiatedLimit();
        AmqpReader reader = new AmqpReader();
        Performatives performatives = new Performatives();
        int at = 0;
        while (at < stream.length) {
            if (ProtocolHeader.isAmqpPrefix(stream, at, 4)) {
                at += ProtocolHeader.LENGTH;
                continue;
            }
            assertTrue(frames.read(stream, at, stream.length - at), "a whole frame at " + at);
            if (frames.type() == FrameHeader.TYPE_AMQP && !frames.isEmpty()) {
                reader.wrap(stream, frames.bodyOffset(), frames.bodyLength());
                if (performatives.decode(reader).descriptor() == Descriptors.TRANSFER) {
                    return java.util.Arrays.copyOfRange(stream, at, stream.length);
                }
            }
            at += frames.frameSize();
        }
        throw new AssertionError("no transfer in the recording");
    }

    private static void write(Recording r, String name, int prefix) throws IOException {
        if (!Boolean.getBoolean("fuzz.seeds.write")) {
            return;
        }
        byte[] tail = fromFirstTransfer(r.stream());
        byte[] afterHandshake = new byte[1 + tail.length];
        afterHandshake[0] = (byte) prefix;
        System.arraycopy(tail, 0, afterHandshake, 1, tail.length);

        String engine = "connector/src/test/resources/io/amqpservlet/connector/engine/EngineFuzzTestInputs/";
        seed(engine + "acceptorTakesAnyBytesFromTheFirstByte/" + name, r.stream());
        seed(engine + "acceptorTakesAnyBytesAfterAValidHandshake/" + name, afterHandshake);
        String protocol = "protocol/src/test/resources/io/amqpservlet/protocol/";
        seed(protocol + "frame/FrameReaderFuzzTestInputs/splitsAndDecodesAnyFrames/" + name, r.stream());
        seed(protocol + "codec/AmqpScannerFuzzTestInputs/walksAnyBytesAsAmqpValues/" + name, r.request());
        seed(protocol + "message/MessageViewFuzzTestInputs/readsEveryFieldOfAnyMessage/" + name, r.request());
        seed(protocol + "message/SectionScannerFuzzTestInputs/findsTheSameSectionsHoweverTheMessageIsSliced/"
                + name, r.largeRequest());
        seed("container-integration/jetty/src/test/resources/io/amqpservlet/jetty/internal/mapping/RequestMapperFuzzTestInputs/"
                + "mapsAnyRequestMessage/" + name, r.request());
    }

    private static void seed(String path, byte[] bytes) throws IOException {
        Path file = REPOSITORY.resolve(path);
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }
}
