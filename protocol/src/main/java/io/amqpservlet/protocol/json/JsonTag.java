package io.amqpservlet.protocol.json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The names of the tagged objects of the AMQP↔JSON mapping (docs/mapping.md, "Typed bodies"): a JSON object with
 * exactly one member whose name is one of these stands for a value of that AMQP type.
 */
enum JsonTag {
    UBYTE("$ubyte"),
    USHORT("$ushort"),
    UINT("$uint"),
    ULONG("$ulong"),
    BYTE("$byte"),
    SHORT("$short"),
    INT("$int"),
    LONG("$long"),
    FLOAT("$float"),
    DOUBLE("$double"),
    DECIMAL32("$decimal32"),
    DECIMAL64("$decimal64"),
    DECIMAL128("$decimal128"),
    CHAR("$char"),
    TIMESTAMP("$timestamp"),
    UUID("$uuid"),
    BINARY("$binary"),
    SYMBOL("$symbol"),
    MAP("$map"),
    ARRAY("$array"),
    DESCRIBED("$described");

    private static final JsonTag[] ALL = values();

    final String name;
    final byte[] quoted;

    JsonTag(String name) {
        this.name = name;
        this.quoted = ("\"" + name + "\"").getBytes(StandardCharsets.US_ASCII);
    }

    /** The tag whose name is the UTF-8 {@code bytes[offset, offset + length)}, or null. */
    static JsonTag of(byte[] bytes, int offset, int length) {
        if (length < 2 || bytes[offset] != '$') {
            return null;
        }
        for (JsonTag t : ALL) {
            byte[] q = t.quoted;
            if (q.length - 2 == length && Arrays.equals(q, 1, q.length - 1, bytes, offset, offset + length)) {
                return t;
            }
        }
        return null;
    }
}
