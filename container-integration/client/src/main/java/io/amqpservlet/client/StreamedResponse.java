package io.amqpservlet.client;

import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.SectionScanner;

import java.io.IOException;
import java.util.Arrays;

/**
 * One response message that arrives in several transfer frames, read as it comes (the engine's streaming mode):
 * the header sections are kept until the first data section starts, then the head goes to the
 * {@link ResponseListener} and the data bytes follow it (AMQP 1.0 §3.2: the body is the data sections, in order).
 * A message whose body is not data sections is kept whole (bounded by the engine's max-message-size) and handed
 * over at its last frame. The header sections are bounded by {@link #MAX_HEAD_BYTES}.
 */
final class StreamedResponse implements SectionScanner.Listener {
    /** The most bytes of header sections (everything before the body) kept for one response. */
    static final int MAX_HEAD_BYTES = 1024 * 1024;

    private enum Phase { HEAD, STREAM, WHOLE }

    private final SectionScanner scanner = new SectionScanner();
    private final MessageView view = new MessageView();
    private final ResponseListener listener;
    private Phase phase = Phase.HEAD;
    private byte[] buffer = new byte[512];
    private int buffered;
    private IOException failure;

    StreamedResponse(ResponseListener listener) {
        this.listener = listener;
    }

    /**
     * The payload of one transfer frame; {@code last} for the final one.
     *
     * @throws IOException what the listener threw, or a malformed message
     */
    void chunk(byte[] payload, int offset, int length, boolean last) throws IOException {
        if (phase != Phase.STREAM) {
            if (phase == Phase.HEAD && buffered + length > MAX_HEAD_BYTES) {
                throw new AmqpClientException(AmqpClientException.PEER_FAILURE, "the response's header sections "
                        + "exceed " + MAX_HEAD_BYTES + " bytes");
            }
            keep(payload, offset, length);
        }
        try {
            scanner.feed(payload, offset, length, this);
        } catch (DecodeException | IllegalArgumentException e) {
            throw new AmqpClientException(AmqpClientException.PEER_FAILURE, "malformed response message: "
                    + e.getMessage(), e);
        }
        if (failure != null) {
            throw failure;
        }
        if (last && phase != Phase.STREAM) {
            // No data section arrived: the whole message is here, read as a one-frame message is.
            AmqpResponse whole = AmqpRequestClient.response(wrap(buffered), true);
            listener.onHead(whole.withoutBody());
            listener.onBody(whole.body(), 0, whole.body().length);
        }
    }

    private MessageView wrap(int length) throws AmqpClientException {
        try {
            return view.wrap(buffer, 0, length);
        } catch (DecodeException | IllegalArgumentException e) {
            throw new AmqpClientException(AmqpClientException.PEER_FAILURE, "malformed response message: "
                    + e.getMessage(), e);
        }
    }

    private void keep(byte[] payload, int offset, int length) {
        if (buffered + length > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffered + length, buffer.length * 2));
        }
        System.arraycopy(payload, offset, buffer, buffered, length);
        buffered += length;
    }

    @Override
    public void onSection(MessageSection section, long position) {
        if (phase != Phase.HEAD || !section.isBody() || failure != null) {
            return;
        }
        if (section != MessageSection.DATA) {
            phase = Phase.WHOLE;
            return;
        }
        phase = Phase.STREAM;
        try {
            listener.onHead(AmqpRequestClient.response(wrap((int) position), false));
        } catch (IOException e) {
            failure = e;
        }
        buffer = null; // the head was read into the response
    }

    @Override
    public void onData(byte[] bytes, int offset, int length) {
        if (phase == Phase.STREAM && failure == null) {
            try {
                listener.onBody(bytes, offset, length);
            } catch (IOException e) {
                failure = e;
            }
        }
    }
}
