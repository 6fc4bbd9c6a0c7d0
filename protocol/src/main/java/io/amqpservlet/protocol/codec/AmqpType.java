package io.amqpservlet.protocol.codec;

/** The AMQP 1.0 type system (AMQP 1.0 §1.6), one constant per type regardless of its encoding width. */
public enum AmqpType {
    NULL, BOOLEAN, UBYTE, USHORT, UINT, ULONG, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE,
    DECIMAL32, DECIMAL64, DECIMAL128, CHAR, TIMESTAMP, UUID, BINARY, STRING, SYMBOL, LIST, MAP, ARRAY,
    /** A described value: a descriptor followed by the value it describes. */
    DESCRIBED;

    /** {@return whether values of this type are whole numbers that {@link AmqpReader#getLong()} accepts} */
    public boolean isIntegral() {
        switch (this) {
            case UBYTE: case USHORT: case UINT: case ULONG: case BYTE: case SHORT: case INT: case LONG:
                return true;
            default:
                return false;
        }
    }

    /** {@return whether values of this type contain other values (list, map, array, described)} */
    public boolean isCompound() {
        return this == LIST || this == MAP || this == ARRAY || this == DESCRIBED;
    }
}
