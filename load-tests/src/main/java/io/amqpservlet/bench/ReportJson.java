package io.amqpservlet.bench;

import org.eclipse.jetty.util.ajax.JSON;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of the benchmark reports, read and written with Jetty's {@link JSON}: objects are {@link Map}s in file
 * order (so tables list workloads as the file does), arrays {@link List}s, numbers {@link Long} or {@link Double}.
 * Written maps keep their iteration order; NaN and infinities are written as {@code null}
 * ({@link #number(double, int)}), which JSON has no number for (RFC 8259 §6).
 */
public final class ReportJson extends JSON {
    private static final ReportJson INSTANCE = new ReportJson();

    private ReportJson() {
        setArrayConverter(list -> list);
    }

    @Override
    protected Map<String, Object> newMap() {
        return new LinkedHashMap<>();
    }

    /**
     * Parses one JSON value, the whole of {@code text}.
     *
     * @throws IllegalArgumentException for text that is not JSON (a truncated file), with the offset where the
     *                                  parser stopped
     */
    public static Object parse(String text) {
        CountingSource source = new CountingSource(text);
        try {
            Object value = INSTANCE.parse(source, false);
            while (source.hasNext() && Character.isWhitespace(source.peek())) {
                source.next();
            }
            if (source.hasNext()) {
                throw new IllegalStateException("text after the value");
            }
            return value;
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed JSON at offset " + source.offset + " of " + text.length()
                    + ": " + e.getMessage(), e);
        }
    }

    /** Jetty's string source, counting how far the parser got (for the error message). */
    private static final class CountingSource extends JSON.StringSource {
        int offset;

        CountingSource(String text) {
            super(text);
        }

        @Override
        public char next() {
            offset++;
            return super.next();
        }
    }

    /** {@code value} (maps, lists, strings, numbers, booleans, null) as JSON text. */
    public static String write(Object value) {
        return INSTANCE.toJSON(value);
    }

    /** {@code v} rounded to {@code decimals} places, or null when it is not a finite number. */
    public static Double number(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return null;
        }
        double scale = Math.pow(10, decimals);
        return Math.round(v * scale) / scale;
    }
}
