package io.amqpservlet.protocol.types;

import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test support for differential tests: every implementation's view of a composite is turned into the same
 * neutral form, a list of field values with the spec's defaults applied, so that two views compare with
 * {@code assertEquals}. Unsigned numbers become {@code Long}, text and symbols {@code String}, binaries
 * {@code "b:<hex>"}, symbol arrays {@code List<String>}, maps {@code Map<String, String>}, nested composites
 * nested lists headed by the type name; an absent field is {@code null}.
 */
public final class Fields {
    private Fields() {
    }

    /** A field list headed by the type name. */
    public static List<Object> of(String type, Object... fields) {
        List<Object> list = new ArrayList<>();
        list.add(type);
        list.addAll(Arrays.asList(fields));
        return list;
    }

    public static Long uint(int bits) {
        return Integer.toUnsignedLong(bits);
    }

    public static String text(MutableBytes b) {
        return b.isNull() ? null : b.toString();
    }

    public static String binary(MutableBytes b) {
        return b.isNull() ? null : binary(b.array(), 0, b.length());
    }

    public static String binary(byte[] bytes, int offset, int length) {
        StringBuilder sb = new StringBuilder("b:");
        for (int i = offset; i < offset + length; i++) {
            sb.append(Character.forDigit((bytes[i] >> 4) & 0xF, 16)).append(Character.forDigit(bytes[i] & 0xF, 16));
        }
        return sb.toString();
    }

    public static List<String> symbols(SymbolArray a) {
        if (a.isNull() || a.size() == 0) {
            return null; // other implementations do not tell an empty array from an absent one
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            out.add(a.get(i));
        }
        return out;
    }

    public static List<String> symbols(Object[] a) {
        if (a == null || a.length == 0) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Object o : a) {
            out.add(o.toString());
        }
        return out;
    }

    /** A map of symbol keys and string values, as held encoded by us. */
    public static Map<String, String> map(EncodedValue v) {
        if (v.isNull()) {
            return null;
        }
        AmqpReader r = v.reader(new AmqpReader());
        r.enter();
        Map<String, String> out = new LinkedHashMap<>();
        while (r.hasNext()) {
            r.next();
            String key = r.getString();
            r.next();
            out.put(key, r.getString());
        }
        r.exit();
        return out;
    }

    /** A map as another implementation holds it. */
    public static Map<String, String> map(Map<?, ?> m) {
        if (m == null) {
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            out.put(e.getKey().toString(), String.valueOf(e.getValue()));
        }
        return out;
    }

    /** Encodes a symbol-to-string map into {@code into}. */
    public static void putMap(EncodedValue into, Map<String, String> m) {
        if (m == null) {
            into.clear();
            return;
        }
        AmqpWriter w = new AmqpWriter();
        w.startMap();
        for (Map.Entry<String, String> e : m.entrySet()) {
            w.writeSymbol(e.getKey());
            w.writeString(e.getValue());
        }
        w.endMap();
        into.set(w);
    }
}
