package io.amqpservlet.protocol.codec;

/** The AMQP 1.0 type system (AMQP 1.0 §1.6), one constant per type regardless of its encoding width. */
public enum AmqpType {
    /** The AMQP {@code null} type. */
    NULL,
    /** The AMQP {@code boolean} type. */
    BOOLEAN,
    /** The AMQP {@code ubyte} type. */
    UBYTE,
    /** The AMQP {@code ushort} type. */
    USHORT,
    /** The AMQP {@code uint} type. */
    UINT,
    /** The AMQP {@code ulong} type. */
    ULONG,
    /** The AMQP {@code byte} type. */
    BYTE,
    /** The AMQP {@code short} type. */
    SHORT,
    /** The AMQP {@code int} type. */
    INT,
    /** The AMQP {@code long} type. */
    LONG,
    /** The AMQP {@code float} type. */
    FLOAT,
    /** The AMQP {@code double} type. */
    DOUBLE,
    /** The AMQP {@code decimal32} type. */
    DECIMAL32,
    /** The AMQP {@code decimal64} type. */
    DECIMAL64,
    /** The AMQP {@code decimal128} type. */
    DECIMAL128,
    /** The AMQP {@code char} type. */
    CHAR,
    /** The AMQP {@code timestamp} type. */
    TIMESTAMP,
    /** The AMQP {@code uuid} type. */
    UUID,
    /** The AMQP {@code binary} type. */
    BINARY,
    /** The AMQP {@code string} type. */
    STRING,
    /** The AMQP {@code symbol} type. */
    SYMBOL,
    /** The AMQP {@code list} type. */
    LIST,
    /** The AMQP {@code map} type. */
    MAP,
    /** The AMQP {@code array} type. */
    ARRAY,
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
