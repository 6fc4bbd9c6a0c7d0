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
        EncodedValue properties = open.properties();
        if (properties.isNull()) {
            return false;
        }
        try {
            AmqpReader reader = properties.reader(new AmqpReader());
            if (reader.isNull()) {
                return false;
            }
            reader.enter();
            while (reader.hasNext()) {
                reader.next();
                boolean product = reader.contentEquals(PRODUCT);
                if (!reader.hasNext()) {
                    return false;
                }
                reader.next();
                if (product) {
                    return reader.contentEquals(QPID_JMS);
                }
            }
            return false;
        } catch (DecodeException | IllegalStateException e) {
            return false; // the properties are not a map: no product named
        }
    }
}
