package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.SectionScanner;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.types.transport.Attach;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Open;

import java.nio.charset.StandardCharsets;

/**
 * The application side of an acceptor under fuzzing: it behaves like a gateway (accepts sessions and links, grants
 * credit, reads each request's fields, accepts it, answers on sending links) so that peer bytes reach the paths a
 * real application opens, and it records what the engine reported, for the fuzz target's checks. Links whose name
 * starts with {@code stream} are put in streaming mode and their chunks fed to a {@link SectionScanner}.
 *
 * <p>{@link #config()} is the engine configuration every fuzz target and seed recording uses: limits small enough
 * that a few hundred bytes reach them (frames of 1 KiB, 4 channels, 4 handles, a window of 8 frames, 4 deliveries
 * in flight, messages of 16 KiB).
 */
final class FuzzedEngineHandler implements EngineHandler {
    static final String USER = "fuzz";
    static final String PASSWORD = "fuzz-password";
    static final int MAX_FRAME_SIZE_BYTES = 1024;

    private static final byte[] REPLY = new byte[] {0x00, 0x53, 0x75, (byte) 0xA0, 0x02, 'o', 'k'}; // data "ok"

    private final MutableBytes field = new MutableBytes();
    private final MessageId id = new MessageId();
    private final SectionScanner sections = new SectionScanner();
    private final SectionScanner.Listener ignoreSections = new SectionScanner.Listener() {
        @Override
        public void onSection(MessageSection section, long position) {
        }

        @Override
        public void onData(byte[] bytes, int offset, int length) {
        }
    };

    int callbacks;
    int messages;
    int streamedMessages;
    int undecodableFields;
    boolean closed;

    static EngineConfig config() {
        return new EngineConfig()
                .role(EngineConfig.Role.ACCEPTOR)
                .containerId("fuzzed-acceptor")
                .anonymousAllowed(true)
                .plainAuthenticator((authzid, user, password) -> USER.equals(user) && PASSWORD.equals(password)
                        ? user : null)
                .maxFrameSizeBytes(MAX_FRAME_SIZE_BYTES)
                .channelMax(3)
                .handleMax(3)
                .sessionIncomingWindowFrames(8)
                .maxDeliveriesInFlight(4)
                .maxBufferedMessagesPerLink(4)
                .maxBufferedBytesPerConnection(64 * 1024)
                .maxMessageSizeBytes(16 * 1024)
                .trace(false);
    }

    @Override
    public ErrorCondition onOpen(Engine engine, Open remoteOpen) {
        callbacks++;
        return null;
    }

    @Override
    public void onAuthenticated(Engine engine, String identity) {
        callbacks++;
    }

    @Override
    public void onClosed(Engine engine, ErrorCondition error) {
        callbacks++;
        closed = true;
    }

    @Override
    public ErrorCondition onSessionBegin(Session session) {
        callbacks++;
        return null;
    }

    @Override
    public void onSessionEnd(Session session, ErrorCondition error) {
        callbacks++;
    }

    @Override
    public ErrorCondition onLinkAttach(Link link, Attach remoteAttach) {
        callbacks++;
        if (link.isSender()) {
            // A reply waiting for credit: the peer's flow frames decide when it goes.
            link.send(REPLY, 0, REPLY.length, false);
        } else {
            link.streaming(startsWith(link.name(), "stream"));
            link.autoCredit(4);
        }
        return null;
    }

    @Override
    public void onLinkDetach(Link link, ErrorCondition error) {
        callbacks++;
    }

    @Override
    public void onMessage(Link link, Delivery delivery, MessageView message) {
        callbacks++;
        messages++;
        // What a gateway reads of a request; a field the engine did not check may still fail to decode.
        try {
            message.subject(field);
            message.to(field);
            message.replyTo(field);
            message.correlationId(id);
            message.applicationProperty("http:host", field);
            message.contentType(field);
        } catch (DecodeException e) {
            undecodableFields++;
        }
        if (!delivery.remotelySettled()) {
            link.session().engine().accept(delivery);
        }
    }

    @Override
    public void onMessageChunk(Link link, Delivery delivery, byte[] payload, int offset, int length, boolean last) {
        callbacks++;
        try {
            sections.feed(payload, offset, length, ignoreSections);
        } catch (DecodeException e) {
            undecodableFields++;
        }
        if (last) {
            streamedMessages++;
            sections.reset();
            if (!delivery.remotelySettled()) {
                link.session().engine().release(delivery);
            }
        }
    }

    @Override
    public void onMessageAborted(Link link, Delivery delivery) {
        callbacks++;
        sections.reset();
    }

    @Override
    public void onSendable(Link link) {
        callbacks++;
    }

    @Override
    public void onDeliveryUpdated(Link link, Delivery delivery) {
        callbacks++;
    }

    @Override
    public void onDrained(Link link) {
        callbacks++;
    }

    private static boolean startsWith(MutableBytes name, String prefix) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        if (name.isNull() || name.length() < p.length) {
            return false;
        }
        for (int i = 0; i < p.length; i++) {
            if (name.array()[i] != p[i]) {
                return false;
            }
        }
        return true;
    }
}
