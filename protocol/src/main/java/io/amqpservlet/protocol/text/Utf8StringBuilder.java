package io.amqpservlet.protocol.text;

import java.util.Arrays;

/**
 * A reusable builder fed UTF-8 bytes in chunks of any size: a multi-byte sequence may be split across appends.
 * Validation is strict (RFC 3629): overlong forms, UTF-16 surrogates, code points above U+10FFFF, stray
 * continuation bytes and bytes 0xF5-0xFF are rejected with a {@link MalformedTextException} naming the byte
 * position (counted from the last {@link #reset()}). The String is made only when {@link #toString()} or
 * {@link #toCompleteString()} is called.
 *
 * <p>Nothing is allocated while appending once the internal char array is large enough: a run of ASCII bytes is
 * copied in one tight loop, other bytes go through a small state machine. After an exception the builder holds
 * the text decoded before the bad byte; {@link #reset()} before using it again. Not thread-safe.
 */
public final class Utf8StringBuilder implements CharSequence {
    private char[] chars;
    private int length;
    /** Bytes appended since the last reset, for error positions. */
    private long bytesIn;

    // The partial sequence: code point bits so far, continuation bytes still expected, and the range allowed for
    // the next continuation byte (narrower than 0x80-0xBF right after some leads, to exclude overlongs etc.).
    private int partial;
    private int pending;
    private int nextMin = 0x80;
    private int nextMax = 0xBF;

    /** A builder with room for 64 chars before it grows. */
    public Utf8StringBuilder() {
        this(64);
    }

    /**
     * A builder with room for {@code initialCapacity} chars before it grows.
     *
     * @param initialCapacity the first size in bytes
     */
    public Utf8StringBuilder(int initialCapacity) {
        chars = new char[Math.max(8, initialCapacity)];
    }

    /**
     * Empties the builder, keeping its char array, and forgets any partial sequence or error.
     *
     * @return this, for chaining
     */
    public Utf8StringBuilder reset() {
        length = 0;
        bytesIn = 0;
        pending = 0;
        partial = 0;
        nextMin = 0x80;
        nextMax = 0xBF;
        return this;
    }

    /** The number of chars decoded so far (a dangling partial sequence counts for none). */
    @Override
    public int length() {
        return length;
    }

    @Override
    public char charAt(int index) {
        if (index < 0 || index >= length) {
            throw new IndexOutOfBoundsException("index " + index + " of length " + length);
        }
        return chars[index];
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        if (start < 0 || end > length || start > end) {
            throw new IndexOutOfBoundsException("[" + start + ", " + end + ") of length " + length);
        }
        return new String(chars, start, end - start);
    }

    /** {@return whether no multi-byte sequence is left unfinished} */
    public boolean isComplete() {
        return pending == 0;
    }

    /** {@return bytes appended since the last reset} */
    public long bytesAppended() {
        return bytesIn;
    }

    /**
     * Appends the UTF-8 bytes {@code bytes[offset, offset + length)}; they may start or end in the middle of a
     * sequence.
     *
     * @param bytes holds the bytes to append
     * @param offset where they start in {@code bytes}
     * @param length their length in bytes
     * @throws MalformedTextException at the first byte that cannot continue valid UTF-8
     * @return this, for chaining
     */
    public Utf8StringBuilder append(byte[] bytes, int offset, int length) {
        // Each byte yields at most one char, except the last byte of a 4-byte sequence that yields two, and only
        // the first such byte in this call can complete a sequence begun in an earlier call without its lead
        // having been counted here; one spare char covers it.
        ensureCapacity(this.length + length + 1);
        char[] out = chars;
        int n = this.length;
        int i = offset;
        int end = offset + length;
        while (i < end) {
            if (pending == 0) {
                // ASCII fast path: copy the run without touching the state machine.
                byte b;
                while (i < end && (b = bytes[i]) >= 0) {
                    out[n++] = (char) b;
                    i++;
                }
                if (i == end) {
                    break;
                }
            }
            if (pending == 0) {
                // A whole 2- or 3-byte sequence inside this chunk: decode it with locals. Anything else (4-byte
                // sequences, sequences split across appends, errors) goes through the state machine.
                int lead = bytes[i] & 0xFF;
                if (lead >= 0xC2 && lead < 0xE0 && i + 1 < end) {
                    int b1 = bytes[i + 1];
                    if ((b1 & 0xC0) == 0x80) {
                        out[n++] = (char) ((lead & 0x1F) << 6 | (b1 & 0x3F));
                        i += 2;
                        continue;
                    }
                } else if (lead >= 0xE0 && lead < 0xF0 && i + 2 < end) {
                    int b1 = bytes[i + 1] & 0xFF;
                    int b2 = bytes[i + 2];
                    // E0 needs A0..BF (else overlong), ED needs 80..9F (else a surrogate), the rest 80..BF.
                    if (b1 >= (lead == 0xE0 ? 0xA0 : 0x80) && b1 <= (lead == 0xED ? 0x9F : 0xBF)
                            && (b2 & 0xC0) == 0x80) {
                        out[n++] = (char) ((lead & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F));
                        i += 3;
                        continue;
                    }
                }
            }
            this.length = n;
            n = decodeByte(bytes[i] & 0xFF, bytesIn + (i - offset));
            i++;
        }
        this.length = n;
        bytesIn += length;
        return this;
    }

    /**
     * Appends one byte of UTF-8.
     *
     * @param b the byte to append
     * @return this, for chaining
     */
    public Utf8StringBuilder append(byte b) {
        ensureCapacity(length + 2);
        if (pending == 0 && b >= 0) {
            chars[length++] = (char) b;
        } else {
            length = decodeByte(b & 0xFF, bytesIn);
        }
        bytesIn++;
        return this;
    }

    /**
     * Appends a char of already-decoded text (for mixing decoded text with raw bytes, as percent-decoding does).
     *
     * @param c the char to append
     * @throws MalformedTextException if a multi-byte sequence is unfinished, since the char cannot continue it
     * @return this, for chaining
     */
    public Utf8StringBuilder append(char c) {
        if (pending != 0) {
            throw incomplete(bytesIn);
        }
        ensureCapacity(length + 1);
        chars[length++] = c;
        return this;
    }

    /**
     * Appends already-decoded text; see {@link #append(char)}.
     *
     * @param text the text to append
     * @return this, for chaining
     */
    public Utf8StringBuilder append(CharSequence text) {
        if (pending != 0) {
            throw incomplete(bytesIn);
        }
        int n = text.length();
        ensureCapacity(length + n);
        for (int i = 0; i < n; i++) {
            chars[length + i] = text.charAt(i);
        }
        length += n;
        return this;
    }

    /**
     * Feeds one non-ASCII byte (or any byte while a sequence is pending) to the state machine; the char array has
     * room for two more chars. Returns the new length.
     */
    private int decodeByte(int b, long position) {
        int n = length;
        if (pending == 0) {
            // A lead byte. AMQP strings are RFC 3629 UTF-8 (AMQP 1.0 §1.6.20), hence the strict ranges below.
            if (b < 0xC2) {
                throw new MalformedTextException(b < 0x80 ? "unexpected byte" : b < 0xC0
                        ? "continuation byte 0x" + hex(b) + " without a lead byte"
                        : "overlong 2-byte lead 0x" + hex(b), position);
            } else if (b < 0xE0) {
                partial = b & 0x1F;
                pending = 1;
            } else if (b < 0xF0) {
                partial = b & 0x0F;
                pending = 2;
                nextMin = b == 0xE0 ? 0xA0 : 0x80; // E0 80..9F would be overlong
                nextMax = b == 0xED ? 0x9F : 0xBF; // ED A0..BF would be a UTF-16 surrogate
            } else if (b < 0xF5) {
                partial = b & 0x07;
                pending = 3;
                nextMin = b == 0xF0 ? 0x90 : 0x80; // F0 80..8F would be overlong
                nextMax = b == 0xF4 ? 0x8F : 0xBF; // F4 90.. would be above U+10FFFF
            } else {
                throw new MalformedTextException("byte 0x" + hex(b) + " never appears in UTF-8", position);
            }
            return n;
        }
        if (b < nextMin || b > nextMax) {
            String what;
            if (b < 0x80 || b > 0xBF) {
                what = "byte 0x" + hex(b) + " where a continuation byte was expected";
            } else if (partial == 0 && pending == 2) {
                what = "overlong 3-byte sequence";
            } else if (partial == 0x0D && pending == 2) {
                what = "UTF-16 surrogate encoded in UTF-8";
            } else if (partial == 0 && pending == 3) {
                what = "overlong 4-byte sequence";
            } else {
                what = "code point above U+10FFFF";
            }
            throw new MalformedTextException(what, position);
        }
        partial = partial << 6 | (b & 0x3F);
        nextMin = 0x80;
        nextMax = 0xBF;
        if (--pending == 0) {
            int cp = partial;
            if (cp < 0x10000) {
                chars[n++] = (char) cp;
            } else {
                chars[n++] = Character.highSurrogate(cp);
                chars[n++] = Character.lowSurrogate(cp);
            }
        }
        return n;
    }

    private static String hex(int b) {
        return Integer.toHexString(b).toUpperCase(java.util.Locale.ROOT);
    }

    private MalformedTextException incomplete(long position) {
        return new MalformedTextException("incomplete UTF-8 sequence, " + pending + " continuation byte"
                + (pending == 1 ? "" : "s") + " missing", position);
    }

    /**
     * Throws unless every multi-byte sequence is finished.
     *
     * @throws MalformedTextException at the end of the input when a sequence dangles
     */
    public void checkComplete() {
        if (pending != 0) {
            throw incomplete(bytesIn);
        }
    }

    /** The text decoded so far as a new String (a dangling partial sequence is left out). */
    @Override
    public String toString() {
        return new String(chars, 0, length);
    }

    /**
     * {@return the text as a new String, after {@link #checkComplete()}}
     *
     * @throws MalformedTextException when a multi-byte sequence dangles
     */
    public String toCompleteString() {
        checkComplete();
        return new String(chars, 0, length);
    }

    /**
     * {@return whether the decoded text equals {@code text}, without making a String}
     *
     * @param text the text to compare with
     */
    public boolean contentEquals(CharSequence text) {
        if (text.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (chars[i] != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Makes room for {@code capacity} chars; only the first appends of a larger text allocate.
     *
     * @param capacity the least capacity in bytes
     */
    public void ensureCapacity(int capacity) {
        if (capacity > chars.length) {
            chars = Arrays.copyOf(chars, Math.max(capacity, chars.length * 2));
        }
    }
}
