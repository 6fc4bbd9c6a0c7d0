package io.amqpservlet.connector.engine;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.types.messaging.DeliveryState;
import io.amqpservlet.protocol.types.sasl.SaslFrames;
import io.amqpservlet.protocol.types.transport.ErrorCondition;
import io.amqpservlet.protocol.types.transport.Performatives;

import java.nio.ByteBuffer;

/**
 * What an engine needs only while it works, never while its connection is idle (docs/design.md §2): the decoder,
 * the performatives frames are decoded into and encoded from, the message view, the SASL frames, scratch outcomes
 * and errors, the two output buffers and the buffer that keeps a partial frame. An engine takes one from its
 * configuration's {@link EngineScratchPool} when it first needs it and gives it back once nothing is in progress
 * (no output waiting, no partial frame kept), so a busy connection keeps its scratch from request to request and
 * allocates nothing, and an idle one holds only its protocol state. Every object here is cleared or overwritten
 * before each use, so it carries nothing from one connection to the next.
 */
final class EngineScratch {
    /** Output buffers that grew beyond this for a large frame are replaced when the scratch goes back to the pool. */
    static final int MAX_KEPT_OUTPUT_BYTES = 64 * 1024;
    static final int INITIAL_OUTPUT_BYTES = 4096;
    /**
     * What a scratch holds besides its three buffers (decoders, performatives, the message view, SASL frames),
     * measured on a 64-bit JVM with compressed references ({@code ScratchFootprintTest}).
     */
    static final int FIXED_BYTES = 14 * 1024;

    final AmqpReader reader;
    final Performatives in = new Performatives();
    final Performatives out = new Performatives();
    final MessageView view;
    final SaslFrames saslIn = new SaslFrames();
    final SaslFrames saslOut = new SaslFrames();
    final FirstTransferReader transferReader = new FirstTransferReader();
    /** The engine's own outcomes (accept, release, reject, modified) and the held disposition range's outcome. */
    final DeliveryState outcome = new DeliveryState();
    final DeliveryState pendingOutcome = new DeliveryState();
    /** For building the error of an end, and of a detach, from a condition and a description. */
    final ErrorCondition sessionError = new ErrorCondition();
    final ErrorCondition linkError = new ErrorCondition();
    /** For copying a terminus (encode, then decode into the link's own). */
    final AmqpWriter copyWriter = new AmqpWriter(256);
    final AmqpReader copyReader;
    /** The bytes of a frame one read left incomplete (see {@link KeptInput}). */
    AdaptiveBuffer kept;
    private final EngineConfig config;
    /** The two output buffers, each with its view for the transport (see {@link EngineOutput}). */
    AmqpWriter outputA = new AmqpWriter(INITIAL_OUTPUT_BYTES);
    AmqpWriter outputB = new AmqpWriter(INITIAL_OUTPUT_BYTES);
    ByteBuffer viewA;
    ByteBuffer viewB;

    EngineScratch(EngineConfig config) {
        this.config = config;
        this.reader = new AmqpReader(config.decoderLimits());
        this.copyReader = new AmqpReader(config.decoderLimits());
        this.view = new MessageView(config.decoderLimits());
        this.kept = newKeptInput(config);
    }

    private static AdaptiveBuffer newKeptInput(EngineConfig config) {
        int initial = Math.min(4096, config.maxFrameSizeBytes());
        return new AdaptiveBuffer(initial, config.maxFrameSizeBytes() + 16, 30_000_000_000L);
    }

    /** {@return about how many bytes of heap this scratch holds: its fixed objects and its buffers as they are now} */
    int footprintBytes() {
        return FIXED_BYTES + kept.capacity() + outputA.array().length + outputB.array().length;
    }

    /** Drops buffers a burst grew, so the pool keeps only small ones (docs/design.md §2). */
    void trim() {
        if (kept.capacity() > kept.initialCapacity()) {
            kept = newKeptInput(config);
        }
        if (outputA.array().length > MAX_KEPT_OUTPUT_BYTES) {
            outputA = new AmqpWriter(INITIAL_OUTPUT_BYTES);
            viewA = null;
        }
        if (outputB.array().length > MAX_KEPT_OUTPUT_BYTES) {
            outputB = new AmqpWriter(INITIAL_OUTPUT_BYTES);
            viewB = null;
        }
        outputA.clear();
        outputB.clear();
    }
}
