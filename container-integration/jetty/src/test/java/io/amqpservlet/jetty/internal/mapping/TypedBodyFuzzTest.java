package io.amqpservlet.jetty.internal.mapping;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.AllocationBudget;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.AmqpWriter;
import io.amqpservlet.protocol.codec.DecodeException;
import io.amqpservlet.protocol.json.AmqpToJson;
import io.amqpservlet.protocol.json.JsonForm;
import io.amqpservlet.protocol.json.JsonToAmqp;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.message.MessageWriter;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.value.ValueDecoder;
import io.amqpservlet.protocol.value.ValueEncoder;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Coverage-guided fuzzing of the typed-body mapping of the request path (docs/mapping.md, "Typed bodies";
 * docs/fuzzing.md): what a servlet reads of a request whose body is an AMQP value, and what its JSON or typed answer
 * becomes. {@code JsonFuzzTest} fuzzes the codec's AMQP↔JSON mapping on its own; these targets fuzz the Jetty module's
 * use of it: {@link RequestMapper} making the servlet's JSON body and typed value, and {@link ResponseEncoder}
 * turning a servlet's JSON response, or its typed value, back into an {@code amqp-value}.
 */
class TypedBodyFuzzTest {
    private static final Link LINK = RequestMapperFuzzTest.receivingLink();

    /** {@return the acceptor's end of a link to /fuzz, which the requests arrive on} */
    static Link link() {
        return LINK;
    }
    private static final byte[] HEAD = requestHead();
    private static final byte[] REPLY_TO = "/replies".getBytes(StandardCharsets.US_ASCII);
    private static final HttpFields JSON_RESPONSE = HttpFields.build()
            .add(HttpHeader.CONTENT_TYPE, "application/json").asImmutable();
    /** The decoder's own limit on Java values per body, as the mapper applies it. */
    private static final int MAX_VALUES = RequestMapper.MAX_TYPED_VALUES;

    /**
     * A request (POST to {@code /fuzz} with a reply-to) whose body is any bytes after an amqp-value section's
     * descriptor (first byte even) or an amqp-sequence's (odd): so one value, or sequence sections and whatever
     * sections follow. Must hold: the mapper fails with {@link DecodeException} or {@link IllegalArgumentException}
     * only (the connection's {@code amqp:decode-error}); a string, binary or null value is the body as bytes; any
     * other value reaches the servlet as {@code application/json} with its typed value; that JSON, echoed by the
     * servlet, goes back as the amqp-value it reads as, which reads back the same through JSON again; and the typed
     * value set as the response's goes back as the same value.
     */
    @FuzzTest(maxDuration = "5m")
    void mapsAnyAmqpValueBodyToJsonAndBack(byte[] input) {
        if (input.length == 0) {
            return;
        }
        byte[] message = Arrays.copyOf(HEAD, HEAD.length + 3 + input.length - 1);
        message[HEAD.length] = 0x00;
        message[HEAD.length + 1] = 0x53;
        message[HEAD.length + 2] = (byte) ((input[0] & 1) == 0 ? 0x77 : 0x76);
        System.arraycopy(input, 1, message, HEAD.length + 3, input.length - 1);
        MessageView view = new MessageView();
        try {
            view.wrap(message, 0, message.length);
        } catch (DecodeException e) {
            return;
        }
        MappedRequest mapped = new MappedRequest();
        boolean[] mappedOk = new boolean[1];
        AllocationBudget.check("RequestMapper typed body", message.length, () -> {
            try {
                new RequestMapper(false).map(view, LINK, "fuzz-host", "server", 8192, 0L, false, mapped);
                mappedOk[0] = true;
            } catch (DecodeException | IllegalArgumentException e) {
                // the connection answers amqp:decode-error
            }
        });
        if (!mappedOk[0]) {
            return;
        }
        if (mapped.refusedStatus() != 0 || mapped.request() == null) {
            throw new AssertionError("a POST with a reply-to refused: " + mapped.refusedStatus() + " "
                    + mapped.refusedReason);
        }
        MessageSection kind = view.body().kind();
        if (!mapped.jsonBody()) {
            checkBytesBody(view, mapped, message);
            return;
        }
        MetaData.Request request = mapped.request();
        if (!"application/json".equals(request.getHttpFields().get(HttpHeader.CONTENT_TYPE))
                || mapped.typedValue() == null) {
            throw new AssertionError("a " + kind + " body without application/json or a typed value: " + request);
        }
        byte[] json = mapped.body();
        AllocationBudget.check("JSON response of a typed request", message.length + json.length, () -> {
            echoJson(json);
            echoValue(mapped.typedValue());
        });
    }

    /**
     * Any bytes as the JSON a servlet answers a typed request with ({@code application/json}), written in slices
     * (the last byte picks their size), turned into the response message by {@link ResponseEncoder#endWithJson}.
     * Must hold: nothing escapes; the message is well-formed, with the status as subject, the reply-to as {@code to}
     * and no content-type; the body is the amqp-value {@link JsonToAmqp} makes of the text when it is JSON of the
     * mapping, else one data section with the text exactly.
     */
    @FuzzTest(maxDuration = "5m")
    void encodesAnyJsonResponseAsAnAmqpValue(byte[] input) {
        ResponseEncoder encoder = new ResponseEncoder();
        boolean[] became = new boolean[1];
        AllocationBudget.check("ResponseEncoder.endWithJson", input.length, () -> {
            encoder.begin(200, JSON_RESPONSE, REPLY_TO, new MessageId(), HttpVersion.HTTP_1_1, true);
            int slice = input.length == 0 ? 1 : 1 + (input[input.length - 1] & 0xFF) % 64;
            for (int at = 0; at < input.length; at += slice) {
                encoder.data(ByteBuffer.wrap(input, at, Math.min(slice, input.length - at)));
            }
            became[0] = encoder.endWithJson(new JsonToAmqp());
        });
        MessageView response = wrapResponse(encoder);
        AmqpWriter expected = new AmqpWriter();
        boolean isJson;
        try {
            new JsonToAmqp().write(input, 0, input.length, expected);
            isJson = true;
        } catch (DecodeException e) {
            isJson = false;
        }
        if (became[0] != isJson) {
            throw new AssertionError("endWithJson said " + became[0] + " for text that JsonToAmqp "
                    + (isJson ? "reads" : "refuses") + ": " + new String(input, StandardCharsets.UTF_8));
        }
        if (became[0]) {
            byte[] value = amqpValue(response);
            if (!Arrays.equals(value, expected.toByteArray())) {
                throw new AssertionError("the amqp-value is not the JSON's: " + HexFormat.of().formatHex(value));
            }
        } else {
            checkDataBody(response, input);
        }
    }

    /** A body that is not typed: an amqp-value string's UTF-8, binary's bytes, or nothing for null. */
    private static void checkBytesBody(MessageView view, MappedRequest mapped, byte[] message) {
        if (view.body().kind() != MessageSection.AMQP_VALUE) {
            throw new AssertionError("a " + view.body().kind() + " body that is not JSON");
        }
        AmqpReader reader = new AmqpReader();
        view.positionOnAmqpValue(reader);
        byte[] expected = switch (reader.type()) {
            case STRING, BINARY -> Arrays.copyOfRange(reader.buffer(), reader.valueOffset(),
                    reader.valueOffset() + reader.valueLength());
            case NULL -> new byte[0];
            default -> throw new AssertionError("an amqp-value " + reader.type() + " that is not JSON");
        };
        if (!Arrays.equals(expected, mapped.body())) {
            throw new AssertionError("the body of an amqp-value " + reader.type() + " is not its bytes: "
                    + HexFormat.of().formatHex(message));
        }
    }

    /** A servlet that answers the JSON it read: an amqp-value that reads as the same JSON. */
    private static void echoJson(byte[] json) {
        ResponseEncoder encoder = new ResponseEncoder();
        encoder.begin(200, JSON_RESPONSE, REPLY_TO, new MessageId(), HttpVersion.HTTP_1_1, true);
        encoder.data(ByteBuffer.wrap(json));
        if (!encoder.endWithJson(new JsonToAmqp())) {
            // What the mapper makes of any value reads back (a map with a key twice as {"$map": ...}).
            throw new AssertionError("the servlet's JSON did not become an amqp-value: " + text(json));
        }
        // docs/mapping.md: JSON → AMQP → JSON gives the same JSON up to white space and number spelling, so the
        // echo, shown as JSON again, reads as the very value that went back.
        MessageView response = wrapResponse(encoder);
        byte[] value = amqpValue(response);
        byte[] again = new AmqpToJson(JsonForm.PLAIN, RequestMapper.MAX_JSON_BODY_BYTES).body(response, new AmqpReader())
                .toByteArray();
        AmqpWriter reread = new AmqpWriter();
        new JsonToAmqp().write(again, 0, again.length, reread);
        if (!Arrays.equals(value, reread.toByteArray())) {
            throw new AssertionError("the servlet read " + text(json) + "; its echo went back as " + text(again));
        }
    }

    /** A handler that answers with the typed value it was given: the same value goes back. */
    private static void echoValue(Object value) {
        ResponseEncoder encoder = new ResponseEncoder();
        encoder.begin(200, JSON_RESPONSE, REPLY_TO, new MessageId(), HttpVersion.HTTP_1_1, true);
        encoder.endWithValue(value);
        MessageView response = wrapResponse(encoder);
        Object back = ValueDecoder.decodeBody(response, new AmqpReader(), MAX_VALUES);
        AmqpWriter first = new AmqpWriter();
        ValueEncoder.encode(value, first);
        AmqpWriter second = new AmqpWriter();
        ValueEncoder.encode(back, second);
        if (!Arrays.equals(first.toByteArray(), second.toByteArray())) {
            throw new AssertionError("the typed value " + value + " went back as " + back);
        }
    }

    private static MessageView wrapResponse(ResponseEncoder encoder) {
        MessageView response = new MessageView();
        try {
            response.wrap(encoder.array(), encoder.offset(), encoder.length());
        } catch (DecodeException e) {
            throw new AssertionError("the response message does not read", e);
        }
        if (!"200".equals(response.subjectAsString()) || !text(REPLY_TO).equals(response.toAsString())
                || response.contentTypeAsString() != null) {
            throw new AssertionError("a response without subject 200 and to " + text(REPLY_TO)
                    + ", or with a content-type: " + response);
        }
        return response;
    }

    private static byte[] amqpValue(MessageView response) {
        if (response.body().kind() != MessageSection.AMQP_VALUE) {
            throw new AssertionError("the body is " + response.body().kind() + ", not an amqp-value");
        }
        // The section less its descriptor (0x00 0x53 0x77): the value's encoding, constructor included.
        return Arrays.copyOfRange(response.buffer(), response.body().sectionStart(0) + 3,
                response.body().sectionEnd(0));
    }

    private static void checkDataBody(MessageView response, byte[] text) {
        if (response.body().kind() != MessageSection.DATA || response.body().dataSectionCount() != 1) {
            throw new AssertionError("text that stays bytes is not one data section: " + response.body().kind());
        }
        byte[] data = new byte[(int) response.body().dataLength()];
        response.body().copyData(data, 0);
        if (!Arrays.equals(text, data)) {
            throw new AssertionError("the data section is not the text written: " + text(data));
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Properties of a POST to /fuzz with a reply-to, before the body: the fuzzed sections follow. */
    private static byte[] requestHead() {
        AmqpWriter out = new AmqpWriter(128);
        MessageWriter message = new MessageWriter().wrap(out);
        message.startProperties().messageId(7L).to("/fuzz").subject("POST").replyTo("/replies").endProperties();
        return Arrays.copyOfRange(out.array(), out.start(), out.start() + out.length());
    }
}
