package io.amqpservlet.connector.engine;

/**
 * A node that replies can be addressed to (docs/design.md §4): a dynamic source the peer receives from, a named
 * receiver source, or a temporary queue the peer created with a dynamic target. The creator link owns it: when
 * that link ends, the node is deleted. Messages to the node go to its consumer, the sending link the peer
 * attached to receive from it; until one is attached there is nowhere to send.
 */
final class ReplyNode {
    final byte[] address;
    final Link creator;
    Link consumer;

    ReplyNode(byte[] address, Link creator, Link consumer) {
        this.address = address;
        this.creator = creator;
        this.consumer = consumer;
    }
}
