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

    /**
     * The constructor an array of this type's elements is written with (AMQP 1.0 §1.6.24: an array's elements share
     * one constructor). Fixed-width types have one encoding; binary, string and symbol take their 8-bit form when
     * {@code shortVariable} says every element fits in 255 bytes, else the 32-bit one; compounds always take the
     * 32-bit form, since their sizes are known only once written.
     *
     * @param shortVariable whether every element of a variable-width type is at most 255 bytes long
     * @return the format code of the elements' constructor
     * @throws IllegalArgumentException for {@link #DESCRIBED}, whose arrays need a descriptor as well
     */
    public int arrayElementCode(boolean shortVariable) {
        switch (this) {
            case NULL: return FormatCode.NULL;
            case BOOLEAN: return FormatCode.BOOLEAN;
            case UBYTE: return FormatCode.UBYTE;
            case USHORT: return FormatCode.USHORT;
            case UINT: return FormatCode.UINT;
            case ULONG: return FormatCode.ULONG;
            case BYTE: return FormatCode.BYTE;
            case SHORT: return FormatCode.SHORT;
            case INT: return FormatCode.INT;
            case LONG: return FormatCode.LONG;
            case FLOAT: return FormatCode.FLOAT;
            case DOUBLE: return FormatCode.DOUBLE;
            case DECIMAL32: return FormatCode.DECIMAL32;
            case DECIMAL64: return FormatCode.DECIMAL64;
            case DECIMAL128: return FormatCode.DECIMAL128;
            case CHAR: return FormatCode.CHAR;
            case TIMESTAMP: return FormatCode.TIMESTAMP;
            case UUID: return FormatCode.UUID;
            case BINARY: return shortVariable ? FormatCode.VBIN8 : FormatCode.VBIN32;
            case STRING: return shortVariable ? FormatCode.STR8 : FormatCode.STR32;
            case SYMBOL: return shortVariable ? FormatCode.SYM8 : FormatCode.SYM32;
            case LIST: return FormatCode.LIST32;
            case MAP: return FormatCode.MAP32;
            case ARRAY: return FormatCode.ARRAY32;
            default: throw new IllegalArgumentException("no array of " + this + " without a descriptor");
        }
    }

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
