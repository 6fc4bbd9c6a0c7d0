package io.amqpservlet.protocol.types;

import java.nio.charset.StandardCharsets;

/**
 * An immutable string that carries its UTF-8 encoding, computed once: {@code AmqpWriter.writeString} (and so
 * every {@code MessageWriter} call that takes a {@link CharSequence}) copies these bytes instead of encoding the
 * characters again. Meant for constants written on every message, such as application-property keys that are
 * HTTP header names. Create them once; never per message.
 */
public final class Utf8String extends EncodedText {
    private Utf8String(String text) {
        // Unpaired surrogates become '?', as AmqpWriter.writeString encodes them.
        super(text, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@return the pre-encoded form of {@code text}}
     *
     * @param text the text
     */
    public static Utf8String of(String text) {
        if (text == null) {
            throw new NullPointerException("text");
        }
        return new Utf8String(text);
    }
}
