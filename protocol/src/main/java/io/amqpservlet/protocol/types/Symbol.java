package io.amqpservlet.protocol.types;

import java.nio.charset.StandardCharsets;

/**
 * An immutable AMQP symbol (AMQP 1.0 §1.6.21: ASCII text used as a name), holding both its String and its
 * encoded bytes so that comparing it with bytes on the wire allocates nothing. Create symbols once, as
 * constants; never per message.
 */
public final class Symbol extends EncodedText implements Comparable<Symbol> {
    private Symbol(String text) {
        super(text, text.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * {@return the symbol for {@code text}}
     *
     * @param text the text
     * @throws IllegalArgumentException if {@code text} is not ASCII
     */
    public static Symbol of(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                throw new IllegalArgumentException("symbol is not ASCII at index " + i + ": " + text);
            }
        }
        return new Symbol(text);
    }

    @Override
    public int compareTo(Symbol o) {
        return toString().compareTo(o.toString());
    }
}
