package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.FormatCode;
import io.amqpservlet.protocol.codec.InvalidEncodingException;
import io.amqpservlet.protocol.codec.UnexpectedTypeException;

/**
 * A composite type (AMQP 1.0 §1.4) held as a mutable, reusable object: a descriptor and a list of fields.
 * Performatives, SASL frames, terminus, error and delivery-state types extend it. One instance is meant to be
 * decoded into over and over: {@link #decode(AmqpReader)} resets every field first, and neither decoding nor
 * encoding allocates once the field holders have grown to the sizes seen.
 *
 * <p>Decoding accepts the numeric or the symbolic descriptor, a list with trailing fields omitted (they read as
 * null, AMQP 1.0 §1.4) and a list with more fields than this version of the spec defines (the extra fields are
 * skipped). Encoding writes the numeric descriptor and omits trailing fields that are null or at their default.
 * Instances are not thread-safe.
 */
public abstract class DescribedList {
    /** Null fields seen since the last present one: written only if a present field follows. */
    private int pendingNulls;

    /** {@return the numeric descriptor code of this type (AMQP 1.0 §1.5), or 0 while a union type holds no value} */
    public abstract long descriptor();

    /** {@return the type's name as the spec writes it ({@code open}, {@code source}), for errors and traces} */
    public abstract String typeName();

    /**
     * Decodes the described value under the reader's cursor (the reader has just returned it from
     * {@code next()} or {@code nextField()}) into this object, replacing every field. On return the reader is
     * positioned after the value.
     *
     * @param reader the reader to decode from
     * @throws io.amqpservlet.protocol.codec.DecodeException when the value is not this type, is not a list,
     *         lacks a mandatory field or holds a field of the wrong type
     */
    public abstract void decode(AmqpReader reader);

    /**
     * Encodes this value: numeric descriptor, then the fields as a list without trailing absent fields.
     *
     * @param writer the writer to encode into
     */
    public abstract void encode(AmqpWriter writer);

    /**
     * Resets every field to its default (absent, or the spec's default value).
     *
     * @return this, for chaining
     */
    public abstract DescribedList clear();

    /** For subclasses: a composite type with every field at its default. */
    protected DescribedList() {
    }

    /** {@return whether this value is absent when held as a field of another type} Performatives never are. */
    public boolean isNull() {
        return false;
    }

    // ------------------------------------------------------------------------------------------ decoding

    /**
     * Checks that the reader is on this type's described value and steps into its list of fields.
     *
     * @param reader the reader to decode from
     */
    protected final void enterFields(AmqpReader reader) {
        if (reader.formatCode() != FormatCode.DESCRIBED) {
            throw new UnexpectedTypeException("expected described " + typeName() + " but found "
                    + FormatCode.name(reader.formatCode()), reader.valueStart());
        }
        long code = descriptor();
        long found = reader.descriptorCode();
        if (found != code && !(found == -1 && reader.descriptorIs(Descriptors.symbolOf(code)))) {
            throw new UnexpectedTypeException("expected " + typeName() + " (descriptor 0x" + Long.toHexString(code)
                    + ") but found descriptor " + describe(found), reader.valueStart());
        }
        enterBody(reader, typeName());
    }

    /**
     * Steps into a described value whose descriptor was already checked, and into its list of fields.
     *
     * @param reader the reader to decode from
     * @param typeName the type's name, for the error message
     * @throws UnexpectedTypeException when the described value is not a list
     */
    protected static void enterBody(AmqpReader reader, String typeName) {
        // Onto the list without opening a compound for the described value: one exit() leaves the fields.
        reader.unwrapDescribed();
        int body = reader.formatCode();
        if (body != FormatCode.LIST0 && body != FormatCode.LIST8 && body != FormatCode.LIST32) {
            throw new UnexpectedTypeException(typeName + " must be a described list but its value is "
                    + FormatCode.name(body), reader.valueStart());
        }
        reader.enter();
    }

    /**
     * Leaves the list, skipping fields a later spec version may have added (and with it the described value).
     *
     * @param reader the reader to decode from
     */
    protected static void exitFields(AmqpReader reader) {
        reader.exit();
    }

    /**
     * Throws if the field just read with {@code nextField()} is null although the spec makes it mandatory.
     *
     * @param reader the reader to decode from
     * @param field the field's name, for the error message
     */
    protected final void requireField(AmqpReader reader, String field) {
        if (reader.isNull()) {
            throw new InvalidEncodingException(typeName() + ": mandatory field " + field + " is null",
                    reader.valueStart());
        }
    }

    /**
     * {@return the current field as a ushort (0 to 65535)}
     *
     * @param reader the reader to decode from
     * @param field the field's name, for the error message
     */
    protected final int readUShort(AmqpReader reader, String field) {
        int v = reader.getInt();
        if ((v & 0xFFFF0000) != 0) {
            throw new InvalidEncodingException(typeName() + ": " + field + " " + Integer.toUnsignedString(v)
                    + " exceeds a ushort", reader.valueStart());
        }
        return v;
    }

    /**
     * {@return the current field as a ubyte (0 to 255)}
     *
     * @param reader the reader to decode from
     * @param field the field's name, for the error message
     */
    protected final int readUByte(AmqpReader reader, String field) {
        int v = reader.getInt();
        if ((v & 0xFFFFFF00) != 0) {
            throw new InvalidEncodingException(typeName() + ": " + field + " " + Integer.toUnsignedString(v)
                    + " exceeds a ubyte", reader.valueStart());
        }
        return v;
    }

    private static String describe(long code) {
        return code == -1 ? "of another kind" : "0x" + Long.toHexString(code);
    }

    // ------------------------------------------------------------------------------------------ encoding

    /**
     * Writes the numeric descriptor and opens the list of fields.
     *
     * @param writer the writer to encode into
     */
    protected final void startFields(AmqpWriter writer) {
        writer.writeDescriptor(descriptor());
        writer.startList();
        pendingNulls = 0;
    }

    /**
     * Closes the list; trailing absent fields are never written (AMQP 1.0 §1.4).
     *
     * @param writer the writer to encode into
     */
    protected final void endFields(AmqpWriter writer) {
        pendingNulls = 0;
        writer.endList();
    }

    /** An absent field, or one at its default: written as null only if a present field follows. */
    protected final void skipField() {
        pendingNulls++;
    }

    private void flushNulls(AmqpWriter writer) {
        for (; pendingNulls > 0; pendingNulls--) {
            writer.writeNull();
        }
    }

    /**
     * Writes a uint field from its 32 bits.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void uintField(AmqpWriter writer, int value) {
        flushNulls(writer);
        writer.writeUInt(value);
    }

    /**
     * Writes a ulong field.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void ulongField(AmqpWriter writer, long value) {
        flushNulls(writer);
        writer.writeULong(value);
    }

    /**
     * Writes a ushort field.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void ushortField(AmqpWriter writer, int value) {
        flushNulls(writer);
        writer.writeUShort(value);
    }

    /**
     * Writes a ubyte field.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void ubyteField(AmqpWriter writer, int value) {
        flushNulls(writer);
        writer.writeUByte(value);
    }

    /**
     * Writes a boolean field.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void booleanField(AmqpWriter writer, boolean value) {
        flushNulls(writer);
        writer.writeBoolean(value);
    }

    /**
     * Writes a boolean field whose default is false: absent when false.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void flagField(AmqpWriter writer, boolean value) {
        if (value) {
            booleanField(writer, true);
        } else {
            skipField();
        }
    }

    /**
     * Writes a string field, absent when null.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void stringField(AmqpWriter writer, MutableBytes value) {
        if (value.isNull()) {
            skipField();
        } else {
            flushNulls(writer);
            value.writeString(writer);
        }
    }

    /**
     * Writes a symbol field, absent when null.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void symbolField(AmqpWriter writer, MutableBytes value) {
        if (value.isNull()) {
            skipField();
        } else {
            flushNulls(writer);
            value.writeSymbol(writer);
        }
    }

    /**
     * Writes a constant symbol field.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void symbolField(AmqpWriter writer, Symbol value) {
        flushNulls(writer);
        writer.writeSymbol(value);
    }

    /**
     * Writes a binary field, absent when null.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void binaryField(AmqpWriter writer, MutableBytes value) {
        if (value.isNull()) {
            skipField();
        } else {
            flushNulls(writer);
            value.writeBinary(writer);
        }
    }

    /**
     * Writes a multiple-symbol field, absent when null.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void symbolsField(AmqpWriter writer, SymbolArray value) {
        if (value.isNull()) {
            skipField();
        } else {
            flushNulls(writer);
            value.write(writer);
        }
    }

    /**
     * Writes a field kept as its encoded bytes, absent when null.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void encodedField(AmqpWriter writer, EncodedValue value) {
        if (value.isNull()) {
            skipField();
        } else {
            flushNulls(writer);
            value.write(writer);
        }
    }

    /**
     * Writes a nested composite field, absent when {@link #isNull()}.
     *
     * @param writer the writer to encode into
     * @param value the field's value
     */
    protected final void compositeField(AmqpWriter writer, DescribedList value) {
        if (value.isNull()) {
            skipField();
        } else {
            flushNulls(writer);
            value.encode(writer);
        }
    }

    /**
     * {@return the exception for encoding a value whose mandatory field is not set}
     *
     * @param field the field's name, for the error message
     */
    protected final IllegalStateException missing(String field) {
        return new IllegalStateException(typeName() + ": mandatory field " + field + " is not set");
    }

    // ------------------------------------------------------------------------------------------ tracing

    /**
     * Starts a Proton-style trace: {@code @open(16) [}.
     *
     * @return the trace so far, for the fields to be appended
     */
    protected final StringBuilder traceStart() {
        return new StringBuilder(64).append('@').append(typeName()).append('(').append(descriptor()).append(") [");
    }

    /**
     * Ends a trace started with {@link #traceStart()}.
     *
     * @param sb the trace being built
     * @return the finished trace
     */
    protected static String traceEnd(StringBuilder sb) {
        return sb.append(']').toString();
    }

    private static StringBuilder name(StringBuilder sb, String name) {
        if (sb.charAt(sb.length() - 1) != '[') {
            sb.append(", ");
        }
        return sb.append(name).append('=');
    }

    /**
     * Appends {@code name=value}.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void trace(StringBuilder sb, String name, long value) {
        name(sb, name).append(value);
    }

    /**
     * Appends {@code name=value} with the 32 bits read as unsigned.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceUInt(StringBuilder sb, String name, int value) {
        name(sb, name).append(Integer.toUnsignedLong(value));
    }

    /**
     * Appends {@code name=value}.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void trace(StringBuilder sb, String name, boolean value) {
        name(sb, name).append(value);
    }

    /**
     * Appends {@code name=text} when {@code text} is not null.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param text the field's value, as text
     */
    protected static void trace(StringBuilder sb, String name, Object text) {
        if (text != null) {
            name(sb, name).append(text);
        }
    }

    /**
     * Appends {@code name="text"} unless the holder is null.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceString(StringBuilder sb, String name, MutableBytes value) {
        if (!value.isNull()) {
            name(sb, name).append('"').append(value).append('"');
        }
    }

    /**
     * Appends {@code name=:symbol} unless the holder is null.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceSymbol(StringBuilder sb, String name, MutableBytes value) {
        if (!value.isNull()) {
            name(sb, name).append(':').append(value);
        }
    }

    /**
     * Appends {@code name=b"\x01..."} unless the holder is null: printable ASCII as is, other bytes escaped.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceBinary(StringBuilder sb, String name, MutableBytes value) {
        if (value.isNull()) {
            return;
        }
        name(sb, name).append("b\"");
        byte[] b = value.array();
        for (int i = 0; i < value.length(); i++) {
            int c = b[i] & 0xFF;
            if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
                sb.append((char) c);
            } else {
                sb.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
            }
        }
        sb.append('"');
    }

    /**
     * Appends {@code name=[a, b]} unless the holder is null.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceSymbols(StringBuilder sb, String name, SymbolArray value) {
        if (!value.isNull()) {
            name(sb, name).append(value);
        }
    }

    /**
     * Appends {@code name=<n bytes encoded>} unless the holder is null.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceEncoded(StringBuilder sb, String name, EncodedValue value) {
        if (!value.isNull()) {
            name(sb, name).append('<').append(value.length()).append(" bytes encoded>");
        }
    }

    /**
     * Appends {@code name=@type(...) [...]} unless the composite is null.
     *
     * @param sb the trace being built
     * @param name the field's name
     * @param value the field's value
     */
    protected static void traceComposite(StringBuilder sb, String name, DescribedList value) {
        if (!value.isNull()) {
            name(sb, name).append(value);
        }
    }
}
