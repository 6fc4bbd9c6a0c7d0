package io.amqpservlet.protocol.codec;

import java.util.List;

/** Names the first place where two {@link AmqpValue}s differ, so that a failing comparison is readable. */
final class ValueDiff {
    private ValueDiff() {
    }

    /** A path and the two differing parts, or null when the values are equal. */
    static String first(AmqpValue expected, AmqpValue actual) {
        return first("$", expected, actual);
    }

    private static String first(String path, AmqpValue e, AmqpValue a) {
        if (e.equals(a)) {
            return null;
        }
        if (e instanceof AmqpValue.ListV x && a instanceof AmqpValue.ListV y) {
            return first(path, x.elements(), y.elements());
        }
        if (e instanceof AmqpValue.MapV x && a instanceof AmqpValue.MapV y) {
            return first(path + "{}", x.keysAndValues(), y.keysAndValues());
        }
        if (e instanceof AmqpValue.ArrayV x && a instanceof AmqpValue.ArrayV y
                && x.elementType() == y.elementType() && java.util.Objects.equals(x.descriptor(), y.descriptor())) {
            return first(path + "<" + x.elementType() + ">", x.elements(), y.elements());
        }
        if (e instanceof AmqpValue.Described x && a instanceof AmqpValue.Described y) {
            String d = first(path + ".descriptor", x.descriptor(), y.descriptor());
            return d != null ? d : first(path + ".value", x.value(), y.value());
        }
        return path + ": expected " + shorten(e) + " but was " + shorten(a);
    }

    private static String first(String path, List<AmqpValue> e, List<AmqpValue> a) {
        for (int i = 0; i < Math.min(e.size(), a.size()); i++) {
            String d = first(path + "[" + i + "]", e.get(i), a.get(i));
            if (d != null) {
                return d;
            }
        }
        return path + ": expected " + e.size() + " elements but was " + a.size();
    }

    private static String shorten(AmqpValue v) {
        String s = v.toString();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
