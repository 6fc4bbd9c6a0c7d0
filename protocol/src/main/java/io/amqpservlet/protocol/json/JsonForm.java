package io.amqpservlet.protocol.json;

/**
 * How {@link AmqpToJson} writes the AMQP types that JSON has no type for (docs/mapping.md, "Typed bodies").
 * Either form reads back through {@link JsonToAmqp}; they differ in what comes back.
 */
public enum JsonForm {
    /**
     * What an ordinary JSON reader expects: every integer type a JSON number, float a number, a symbol a string, a
     * map with string or symbol keys an object, an array a JSON array. Read back, integers become {@code long}
     * (above {@link Long#MAX_VALUE}: {@code ulong}), floats {@code double}, symbols strings and arrays lists. The
     * types JSON cannot hold at all (uuid, timestamp, binary, char, decimals, described values, maps with other
     * keys) are tagged objects, as in {@link #TAGGED}.
     */
    PLAIN,
    /**
     * Exact: every value whose type {@link JsonToAmqp} would not restore from plain JSON is a tagged object
     * ({@code {"$uint": 5}}, {@code {"$symbol": "x"}}, {@code {"$array": ["string", "a", "b"]}}), so that the JSON
     * reads back as the same AMQP value (docs/mapping.md lists the two exceptions: NaN payloads and arrays of
     * described values).
     */
    TAGGED
}
