package io.amqpservlet.protocol.codec;

/**
 * Bounds on what a peer can make a decoder do. Sizes are always checked against the bytes actually present;
 * these limits bound the work and stack depth that a legal-looking encoding can demand.
 *
 * @param maxDepth most nested compound values (list, map, array, described) open at once
 * @param maxElements most elements one list, map or array may declare
 */
public record DecoderLimits(int maxDepth, int maxElements) {
    /** 64 levels, 1,048,576 elements: far beyond any performative or message header a real client sends. */
    public static final DecoderLimits DEFAULT = new DecoderLimits(64, 1 << 20);

    /**
     * Checks the bounds.
     *
     * @param maxDepth most nested compound values open at once; at least 1
     * @param maxElements most elements one list, map or array may declare; not negative
     */
    public DecoderLimits {
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be at least 1: " + maxDepth);
        }
        if (maxElements < 0) {
            throw new IllegalArgumentException("maxElements must not be negative: " + maxElements);
        }
    }
}
