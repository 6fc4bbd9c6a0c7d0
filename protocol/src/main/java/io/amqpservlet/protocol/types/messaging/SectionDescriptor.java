package io.amqpservlet.protocol.types.messaging;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;
import io.amqpservlet.protocol.types.Descriptors;

/**
 * Steps a reader from a described section into its value, checking the descriptor, so that each section type
 * does not repeat it. Accepts numeric and symbolic descriptors (AMQP 1.0 §1.5).
 */
final class SectionDescriptor {
    private SectionDescriptor() {
    }

    /**
     * With the reader on a described value whose descriptor is {@code code}, enters it and moves to the value it
     * describes, checking that this value is a list ({@code list}) or a map; the caller then enters that value
     * and finally exits it once.
     */
    static void enter(AmqpReader reader, long code, String what, boolean list) {
        if (reader.formatCode() != FormatCode.DESCRIBED) {
            throw new UnexpectedTypeException("expected the " + what + " section but found "
                    + FormatCode.name(reader.formatCode()), reader.valueStart());
        }
        long found = Descriptors.codeOf(reader);
        if (found != code) {
            throw new UnexpectedTypeException("expected the " + what + " section (descriptor 0x"
                    + Long.toHexString(code) + ") but found descriptor " + (found < 0 ? "of another domain"
                    : "0x" + Long.toHexString(found)), reader.valueStart());
        }
        // Onto the value without opening a compound for the described value: one exit() leaves the section.
        reader.unwrapDescribed();
        int c = reader.formatCode();
        boolean ok = list
                ? c == FormatCode.LIST0 || c == FormatCode.LIST8 || c == FormatCode.LIST32
                : c == FormatCode.MAP8 || c == FormatCode.MAP32;
        if (!ok) {
            throw new UnexpectedTypeException("the " + what + " section holds " + FormatCode.name(c)
                    + ", not a " + (list ? "list" : "map"), reader.valueStart());
        }
    }
}
