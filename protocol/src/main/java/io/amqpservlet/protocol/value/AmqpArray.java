package io.amqpservlet.protocol.value;

import io.amqpservlet.protocol.codec.AmqpType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An AMQP array (AMQP 1.0 §1.6.24: values of one type, encoded with one shared constructor) as a Java value; a
 * {@code java.util.List} is encoded as an AMQP list instead. Each element is a Java value of the element type, as
 * {@link ValueDecoder} makes them ({@code String} for {@link AmqpType#STRING}, {@link UnsignedInteger} for
 * {@link AmqpType#UINT}, ...); when encoding, a numeric element may also be any {@code Number} in range. An
 * array of described values ({@link AmqpType#DESCRIBED}) holds {@link Described} elements with one descriptor.
 *
 * @param elementType the AMQP type every element has
 * @param elements the elements, in order; an unmodifiable copy is kept (nulls allowed for an array of null)
 */
public record AmqpArray(AmqpType elementType, List<?> elements) {
    /**
     * Keeps an unmodifiable copy of the elements.
     *
     * @param elementType the AMQP type every element has
     * @param elements the elements, in order
     */
    public AmqpArray {
        if (elementType == null) {
            throw new NullPointerException("elementType");
        }
        elements = Collections.unmodifiableList(new ArrayList<>(elements));
    }

    /**
     * {@return an array of {@code elementType} holding {@code elements}}
     *
     * @param elementType the AMQP type every element has
     * @param elements the elements, in order
     */
    public static AmqpArray of(AmqpType elementType, Object... elements) {
        List<Object> list = new ArrayList<>(elements.length);
        Collections.addAll(list, elements);
        return new AmqpArray(elementType, list);
    }
}
