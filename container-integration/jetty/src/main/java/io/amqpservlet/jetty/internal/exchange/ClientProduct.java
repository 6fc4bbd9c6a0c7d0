package io.amqpservlet.jetty.internal.exchange;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.types.EncodedValue;
import io.amqpservlet.protocol.types.transport.Open;

import java.nio.charset.StandardCharsets;

/**
 * Which client product a peer says it is, from the {@code product} entry of its open's properties (a convention of
 * the Qpid clients, AMQP 1.0 §2.7.1 {@code fields}). Read once per connection, so it may allocate a reader.
 */
final class ClientProduct {
    private static final byte[] PRODUCT = "product".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] QPID_JMS = "QpidJMS".getBytes(StandardCharsets.US_ASCII);

    private ClientProduct() {
    }

    /** {@return whether the open's properties name the product Qpid JMS} Malformed properties name nothing. */
    static boolean isQpidJms(Open open) {
        AmqpReader product = product(open);
        try {
            return product != null && product.contentEquals(QPID_JMS);
        } catch (DecodeException | IllegalStateException notText) {
            return false;
        }
    }

    /**
     * {@return the product the open's properties name, or null when they name none (or are malformed)} Decodes a
     * string: for the connection's log line, read only when that line is written.
     */
    static String of(Open open) {
        AmqpReader product = product(open);
        try {
            return product == null ? null : product.getStringOrNull();
        } catch (DecodeException | IllegalStateException notText) {
            return null;
        }
    }

    /** A reader on the value of the {@code product} entry, or null when there is none. */
    private static AmqpReader product(Open open) {
        EncodedValue properties = open.properties();
        if (properties.isNull()) {
            return null;
        }
        try {
            AmqpReader reader = properties.reader(new AmqpReader());
            if (reader.isNull()) {
                return null;
            }
            reader.enter();
            while (reader.hasNext()) {
                reader.next();
                boolean product = reader.contentEquals(PRODUCT);
                if (!reader.hasNext()) {
                    return null;
                }
                reader.next();
                if (product) {
                    return reader;
                }
            }
            return null;
        } catch (DecodeException | IllegalStateException e) {
            return null; // the properties are not a map: no product named
        }
    }
}
