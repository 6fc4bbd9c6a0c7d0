package io.amqpservlet.bench.text;

import io.amqpservlet.protocol.text.KnownStrings;
import io.amqpservlet.protocol.text.PercentEncoder;
import io.amqpservlet.protocol.text.Utf8;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The text tools against the JDK and Jetty on the strings a gateway meets: a request-target and a header name.
 * Workloads are named {@code <workload>_<impl>}; {@code text=ascii} is a typical path with escapes,
 * {@code text=mixed} has non-ASCII characters in every segment.
 *
 * <pre>java -jar load-tests/target/benchmarks.jar TextBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TextBenchmark {
    @Param({"ascii", "mixed"})
    public String text;

    /** Percent-encoded form, as a client might send it in {@code to}. */
    private String encoded;
    /** The decoded text, as an AMQP string would carry it unencoded. */
    private String raw;
    private byte[] rawUtf8;
    private byte[] headerName;

    private final org.eclipse.jetty.util.Utf8StringBuilder jetty = new org.eclipse.jetty.util.Utf8StringBuilder(256);
    private final StringBuilder encodeOut = new StringBuilder(256);

    @Setup
    public void setUp() {
        if (text.equals("ascii")) {
            encoded = "/orders/42?expand=items&x=%2Fa%20b";
        } else {
            encoded = "/stra%C3%9Fe/%E6%9D%B1%E4%BA%AC/%C3%BCn%C3%AFc%C3%B6d%C3%A9?q=caf%C3%A9%E2%82%AC%F0%9F%98%80";
        }
        raw = URLDecoder.decode(encoded, StandardCharsets.UTF_8);
        rawUtf8 = raw.getBytes(StandardCharsets.UTF_8);
        headerName = "Content-Type".getBytes(StandardCharsets.US_ASCII);
    }

    // ----------------------------------------------------------------------------------- percent-encoding

    /** One component, as URLEncoder does (which also turns space into '+'). */
    @Benchmark
    public String percentEncode_ours() {
        return PercentEncoder.COMPONENT.encode(raw);
    }

    @Benchmark
    public String percentEncode_jdk() {
        return URLEncoder.encode(raw, StandardCharsets.UTF_8);
    }

    /** The gateway's case: an already-encoded request-target that needs nothing (returns the same String). */
    @Benchmark
    public String percentEncodeEncoded_ours() {
        return PercentEncoder.REQUEST_TARGET.encode(encoded);
    }

    /** Encoding the wire bytes of an AMQP string straight into a reused builder. */
    @Benchmark
    public int percentEncodeBytesReuse_ours() {
        encodeOut.setLength(0);
        PercentEncoder.REQUEST_TARGET.encode(rawUtf8, 0, rawUtf8.length, encodeOut);
        return encodeOut.length();
    }

    // ----------------------------------------------------------------------------------- UTF-8 decoding

    @Benchmark
    public String utf8DecodeStatic_ours() {
        return Utf8.decode(rawUtf8, 0, rawUtf8.length);
    }

    @Benchmark
    public String utf8Decode_jdk() {
        return new String(rawUtf8, StandardCharsets.UTF_8);
    }

    @Benchmark
    public String utf8Decode_jetty() {
        jetty.reset();
        jetty.append(rawUtf8, 0, rawUtf8.length);
        return jetty.toCompleteString();
    }

    // ----------------------------------------------------------------------------------- header names

    @Benchmark
    public String headerName_ours() {
        return KnownStrings.CACHE.getLowerCase(headerName, 0, headerName.length);
    }

    @Benchmark
    public String headerName_jdk() {
        return new String(headerName, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
    }
}
