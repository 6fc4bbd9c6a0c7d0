package io.amqpservlet.protocol.codec;

/**
 * The AMQP 1.0 format codes (constructor bytes), AMQP 1.0 §1.6, and a 256-entry table that says how each one
 * is laid out on the wire.
 *
 * <p>Every constant is the unsigned byte value as an {@code int}, so it can be compared with
 * {@code buffer[i] & 0xFF} without widening surprises.
 */
public final class FormatCode {
    private FormatCode() {
    }

    /** Introduces a described value: a descriptor, then the value's constructor. */
    public static final int DESCRIBED = 0x00;

    /** Format code 0x40: null. */
    public static final int NULL = 0x40;
    /** Format code 0x56: boolean. */
    public static final int BOOLEAN = 0x56;
    /** Format code 0x41: boolean true. */
    public static final int BOOLEAN_TRUE = 0x41;
    /** Format code 0x42: boolean false. */
    public static final int BOOLEAN_FALSE = 0x42;
    /** Format code 0x50: ubyte. */
    public static final int UBYTE = 0x50;
    /** Format code 0x60: ushort. */
    public static final int USHORT = 0x60;
    /** Format code 0x70: uint. */
    public static final int UINT = 0x70;
    /** Format code 0x52: smalluint. */
    public static final int SMALLUINT = 0x52;
    /** Format code 0x43: uint0. */
    public static final int UINT0 = 0x43;
    /** Format code 0x80: ulong. */
    public static final int ULONG = 0x80;
    /** Format code 0x53: smallulong. */
    public static final int SMALLULONG = 0x53;
    /** Format code 0x44: ulong0. */
    public static final int ULONG0 = 0x44;
    /** Format code 0x51: byte. */
    public static final int BYTE = 0x51;
    /** Format code 0x61: short. */
    public static final int SHORT = 0x61;
    /** Format code 0x71: int. */
    public static final int INT = 0x71;
    /** Format code 0x54: smallint. */
    public static final int SMALLINT = 0x54;
    /** Format code 0x81: long. */
    public static final int LONG = 0x81;
    /** Format code 0x55: smalllong. */
    public static final int SMALLLONG = 0x55;
    /** Format code 0x72: float. */
    public static final int FLOAT = 0x72;
    /** Format code 0x82: double. */
    public static final int DOUBLE = 0x82;
    /** Format code 0x74: decimal32. */
    public static final int DECIMAL32 = 0x74;
    /** Format code 0x84: decimal64. */
    public static final int DECIMAL64 = 0x84;
    /** Format code 0x94: decimal128. */
    public static final int DECIMAL128 = 0x94;
    /** Format code 0x73: char. */
    public static final int CHAR = 0x73;
    /** Format code 0x83: timestamp. */
    public static final int TIMESTAMP = 0x83;
    /** Format code 0x98: uuid. */
    public static final int UUID = 0x98;
    /** Format code 0xA0: vbin8. */
    public static final int VBIN8 = 0xA0;
    /** Format code 0xB0: vbin32. */
    public static final int VBIN32 = 0xB0;
    /** Format code 0xA1: str8. */
    public static final int STR8 = 0xA1;
    /** Format code 0xB1: str32. */
    public static final int STR32 = 0xB1;
    /** Format code 0xA3: sym8. */
    public static final int SYM8 = 0xA3;
    /** Format code 0xB3: sym32. */
    public static final int SYM32 = 0xB3;
    /** Format code 0x45: list0. */
    public static final int LIST0 = 0x45;
    /** Format code 0xC0: list8. */
    public static final int LIST8 = 0xC0;
    /** Format code 0xD0: list32. */
    public static final int LIST32 = 0xD0;
    /** Format code 0xC1: map8. */
    public static final int MAP8 = 0xC1;
    /** Format code 0xD1: map32. */
    public static final int MAP32 = 0xD1;
    /** Format code 0xE0: array8. */
    public static final int ARRAY8 = 0xE0;
    /** Format code 0xF0: array32. */
    public static final int ARRAY32 = 0xF0;

    /** Layout: the code is not a valid AMQP 1.0 format code. */
    public static final byte LAYOUT_INVALID = 0;
    /** Layout: fixed width; the width in bytes is in {@link #fixedWidth(int)}. */
    public static final byte LAYOUT_FIXED = 1;
    /** Layout: a 1-byte size, then that many bytes (vbin8, str8, sym8). */
    public static final byte LAYOUT_VARIABLE8 = 2;
    /** Layout: a 4-byte size, then that many bytes. */
    public static final byte LAYOUT_VARIABLE32 = 3;
    /** Layout: 1-byte size, 1-byte count (list8, map8). */
    public static final byte LAYOUT_COMPOUND8 = 4;
    /** Layout: 4-byte size, 4-byte count (list32, map32). */
    public static final byte LAYOUT_COMPOUND32 = 5;
    /** Layout: 1-byte size, 1-byte count, element constructor (array8). */
    public static final byte LAYOUT_ARRAY8 = 6;
    /** Layout: 4-byte size, 4-byte count, element constructor (array32). */
    public static final byte LAYOUT_ARRAY32 = 7;

    private static final byte[] LAYOUT = new byte[256];
    private static final byte[] FIXED_WIDTH = new byte[256];
    private static final AmqpType[] TYPE = new AmqpType[256];

    private static void fixed(int code, int width, AmqpType type) {
        LAYOUT[code] = LAYOUT_FIXED;
        FIXED_WIDTH[code] = (byte) width;
        TYPE[code] = type;
    }

    private static void layout(int code, byte layout, AmqpType type) {
        LAYOUT[code] = layout;
        TYPE[code] = type;
    }

    static {
        fixed(NULL, 0, AmqpType.NULL);
        fixed(BOOLEAN, 1, AmqpType.BOOLEAN);
        fixed(BOOLEAN_TRUE, 0, AmqpType.BOOLEAN);
        fixed(BOOLEAN_FALSE, 0, AmqpType.BOOLEAN);
        fixed(UBYTE, 1, AmqpType.UBYTE);
        fixed(USHORT, 2, AmqpType.USHORT);
        fixed(UINT, 4, AmqpType.UINT);
        fixed(SMALLUINT, 1, AmqpType.UINT);
        fixed(UINT0, 0, AmqpType.UINT);
        fixed(ULONG, 8, AmqpType.ULONG);
        fixed(SMALLULONG, 1, AmqpType.ULONG);
        fixed(ULONG0, 0, AmqpType.ULONG);
        fixed(BYTE, 1, AmqpType.BYTE);
        fixed(SHORT, 2, AmqpType.SHORT);
        fixed(INT, 4, AmqpType.INT);
        fixed(SMALLINT, 1, AmqpType.INT);
        fixed(LONG, 8, AmqpType.LONG);
        fixed(SMALLLONG, 1, AmqpType.LONG);
        fixed(FLOAT, 4, AmqpType.FLOAT);
        fixed(DOUBLE, 8, AmqpType.DOUBLE);
        fixed(DECIMAL32, 4, AmqpType.DECIMAL32);
        fixed(DECIMAL64, 8, AmqpType.DECIMAL64);
        fixed(DECIMAL128, 16, AmqpType.DECIMAL128);
        fixed(CHAR, 4, AmqpType.CHAR);
        fixed(TIMESTAMP, 8, AmqpType.TIMESTAMP);
        fixed(UUID, 16, AmqpType.UUID);
        fixed(LIST0, 0, AmqpType.LIST);
        layout(VBIN8, LAYOUT_VARIABLE8, AmqpType.BINARY);
        layout(VBIN32, LAYOUT_VARIABLE32, AmqpType.BINARY);
        layout(STR8, LAYOUT_VARIABLE8, AmqpType.STRING);
        layout(STR32, LAYOUT_VARIABLE32, AmqpType.STRING);
        layout(SYM8, LAYOUT_VARIABLE8, AmqpType.SYMBOL);
        layout(SYM32, LAYOUT_VARIABLE32, AmqpType.SYMBOL);
        layout(LIST8, LAYOUT_COMPOUND8, AmqpType.LIST);
        layout(LIST32, LAYOUT_COMPOUND32, AmqpType.LIST);
        layout(MAP8, LAYOUT_COMPOUND8, AmqpType.MAP);
        layout(MAP32, LAYOUT_COMPOUND32, AmqpType.MAP);
        layout(ARRAY8, LAYOUT_ARRAY8, AmqpType.ARRAY);
        layout(ARRAY32, LAYOUT_ARRAY32, AmqpType.ARRAY);
    }

    /**
     * {@return how the value after this constructor byte is laid out: one of the {@code LAYOUT_} constants}
     *
     * @param code a format code, 0 to 255
     */
    public static byte layout(int code) {
        return LAYOUT[code & 0xFF];
    }

    /**
     * {@return the width in bytes of a fixed-width code's value (0 for null, true, false, uint0, ulong0, list0)}
     *
     * @param code a format code, 0 to 255
     */
    public static int fixedWidth(int code) {
        return FIXED_WIDTH[code & 0xFF];
    }

    /**
     * {@return the AMQP type a code encodes, or {@code null} for an invalid code and for {@link #DESCRIBED}}
     *
     * @param code a format code, 0 to 255
     */
    public static AmqpType type(int code) {
        return TYPE[code & 0xFF];
    }

    /**
     * {@return whether {@code code} is a valid primitive format code (not {@link #DESCRIBED})}
     *
     * @param code a format code, 0 to 255
     */
    public static boolean isValid(int code) {
        return LAYOUT[code & 0xFF] != LAYOUT_INVALID;
    }

    /**
     * {@return a readable name for a code, as used in error messages and frame traces: {@code "str8"}, {@code "0x1f"}}
     *
     * @param code a format code, 0 to 255
     */
    public static String name(int code) {
        switch (code & 0xFF) {
            case DESCRIBED: return "described";
            case NULL: return "null";
            case BOOLEAN: return "boolean";
            case BOOLEAN_TRUE: return "true";
            case BOOLEAN_FALSE: return "false";
            case UBYTE: return "ubyte";
            case USHORT: return "ushort";
            case UINT: return "uint";
            case SMALLUINT: return "smalluint";
            case UINT0: return "uint0";
            case ULONG: return "ulong";
            case SMALLULONG: return "smallulong";
            case ULONG0: return "ulong0";
            case BYTE: return "byte";
            case SHORT: return "short";
            case INT: return "int";
            case SMALLINT: return "smallint";
            case LONG: return "long";
            case SMALLLONG: return "smalllong";
            case FLOAT: return "float";
            case DOUBLE: return "double";
            case DECIMAL32: return "decimal32";
            case DECIMAL64: return "decimal64";
            case DECIMAL128: return "decimal128";
            case CHAR: return "char";
            case TIMESTAMP: return "timestamp";
            case UUID: return "uuid";
            case VBIN8: return "vbin8";
            case VBIN32: return "vbin32";
            case STR8: return "str8";
            case STR32: return "str32";
            case SYM8: return "sym8";
            case SYM32: return "sym32";
            case LIST0: return "list0";
            case LIST8: return "list8";
            case LIST32: return "list32";
            case MAP8: return "map8";
            case MAP32: return "map32";
            case ARRAY8: return "array8";
            case ARRAY32: return "array32";
            default: return "0x" + Integer.toHexString(code & 0xFF);
        }
    }
}
