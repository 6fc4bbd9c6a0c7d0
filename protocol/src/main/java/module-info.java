/**
 * The AMQP 1.0 codec as a library (docs/protocol.md): a cursor decoder and a backfilling encoder, frames,
 * performatives and message sections as reusable objects, a message view and writer, and the text tools they use.
 * Every package is API; classes a package keeps to itself are package-private (docs/design.md §8).
 */
module io.amqpservlet.protocol {
    exports io.amqpservlet.protocol.codec;
    exports io.amqpservlet.protocol.frame;
    exports io.amqpservlet.protocol.json;
    exports io.amqpservlet.protocol.message;
    exports io.amqpservlet.protocol.text;
    exports io.amqpservlet.protocol.types;
    exports io.amqpservlet.protocol.types.messaging;
    exports io.amqpservlet.protocol.types.sasl;
    exports io.amqpservlet.protocol.types.transport;
    exports io.amqpservlet.protocol.value;
}
