package io.amqpservlet.jetty.internal.mapping;

import io.amqpservlet.jetty.AmqpBody;
import io.amqpservlet.jetty.AmqpRequestAttributes;
import io.amqpservlet.connector.engine.Link;
import io.amqpservlet.protocol.codec.AmqpReader;
import io.amqpservlet.protocol.codec.DecoderLimits;
import io.amqpservlet.protocol.codec.AmqpType;
import io.amqpservlet.protocol.json.AmqpToJson;
import io.amqpservlet.protocol.json.JsonForm;
import io.amqpservlet.protocol.message.BodySections;
import io.amqpservlet.protocol.message.MapCursor;
import io.amqpservlet.protocol.message.MessageSection;
import io.amqpservlet.protocol.message.MessageView;
import io.amqpservlet.protocol.text.KnownStrings;
import io.amqpservlet.protocol.text.PercentEncoder;
import io.amqpservlet.protocol.text.Utf8;
import io.amqpservlet.protocol.types.MutableBytes;
import io.amqpservlet.protocol.types.messaging.Header;
import io.amqpservlet.protocol.types.messaging.Properties;
import io.amqpservlet.protocol.types.messaging.MessageId;
import io.amqpservlet.protocol.value.ValueDecoder;
import org.eclipse.jetty.http.HostPortHttpField;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpTokens;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http.MimeTypes;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Turns a request message into an HTTP request, following the projected mode of OASIS "HTTP Semantics and Content
 * over AMQP" WD06 as docs/design.md §3 states it: method from {@code subject}, target from {@code to} (else the link's
 * target address), Host from {@code http:host}/{@code host}/the open's hostname/the server name, headers from
 * application-properties, content type and coding from properties, body from the data sections (or an amqp-value
 * string or binary; any other amqp-value, and amqp-sequence, as JSON, with the typed value as an attribute).
 *
 * <p>A message that is a valid AMQP message but not a valid HTTP request is not rejected: the mapper sets
 * {@link MappedRequest#refusedStatus()} (400; 414 or 431 beyond the request header size; 505 for a version it does
 * not know) and the request is answered with that status without a servlet, as an HTTP server answers a bad request
 * line. Malformed AMQP ({@code DecodeException}) propagates, for
 * the caller to reject with {@code amqp:decode-error}.
 *
 * <p>One instance per thread that runs engine passes, two in fact (plain and TLS connections), used by one pass at a
 * time: the reader, cursor and byte holders are reused, and so are the fields and Strings of the previous request it
 * mapped, which are immutable and may be shared by requests of any connection.
 */
public final class RequestMapper {
    private static final byte[] NO_BODY = new byte[0];
    /** The longest unknown {@code http:request} version a 505 repeats. */
    private static final int MAX_QUOTED_VERSION = 16;
    private static final String HEADERS_TOO_LARGE = "the request's method, target and headers are longer than the "
            + "request header size";
    /** The reply-to that names the other half of the request link's pair (link pairing, as RabbitMQ's clients use). */
    static final String REPLY_TO_PAIRED_LINK = "$me";
    /** Jetty's shared field for an amqp-value string body without a content type. */
    private static final HttpField TEXT_UTF8 = MimeTypes.Type.TEXT_PLAIN_UTF_8.getContentTypeField();
    /** Jetty's shared field for a typed body the servlet reads as JSON. */
    private static final HttpField JSON = MimeTypes.Type.APPLICATION_JSON.getContentTypeField();
    /**
     * The most JSON text one typed body may become (JSON can be several times the encoding's size: a one-byte
     * null is four characters), and the most values its decoded Java form may hold; beyond either the request
     * is rejected with {@code amqp:decode-error}, as any body beyond the decoder's limits.
     */
    static final int MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;
    static final int MAX_TYPED_VALUES = 1 << 20;
    /**
     * The values a typed body may hold beyond one per byte of its encoding. Every value takes at least a byte but
     * the elements of an array of null, true, false or a zero-width number, which take none: without this bound
     * ten bytes could declare a million of them, a million objects and megabytes of JSON made on the engine thread.
     */
    static final int TYPED_VALUES_BEYOND_BYTES = 1024;

    private final MutableBytes scratch = new MutableBytes();
    /** The reply-to of the previous request (engine thread; see {@link #replyTo(MutableBytes)}). */
    private byte[] lastReplyTo;
    private final MapCursor properties = new MapCursor();
    private final MessageId id = new MessageId();
    /** Reads typed bodies within the decoder limits of the connection whose request it maps (see {@link #map}). */
    private AmqpReader reader = new AmqpReader();
    private final String scheme;
    /** The scheme and authority of an absolute-form target, else null (set by {@link #target}). */
    private String targetScheme;
    private String targetAuthority;
    /** The text of the request's content-length application-property, or null (set by {@link #headers}). */
    private String contentLengthProperty;
    /**
     * The text of the request's host application-property, whatever the case of its name (HTTP field names are
     * case-insensitive, and {@code Host} is how HTTP spells it), or null (set by {@link #headers}).
     */
    private String hostProperty;
    /** How many more characters the headers may hold (see {@link #map}); below 0 once they hold too many. */
    private int headerCharsLeft;
    /**
     * The Content-Type and Content-Length fields of the previous request, reused when the next has the same value
     * (a client usually sends one type and often one size): fields are immutable, so requests may share them, as
     * Jetty's HTTP/1 parser shares the fields it caches per connection.
     */
    private HttpField lastContentType;
    private HttpField.LongValueHttpField lastContentLength;
    private HostField lastHost;
    /** The last request target and link address, as Strings: a connection's requests mostly repeat them. */
    private final RecentText recentTarget = new RecentText();
    private final RecentText recentLinkAddress = new RecentText();

    public RequestMapper(boolean secure) {
        this.scheme = secure ? "https" : "http";
    }

    /**
     * Fills {@code into} from {@code message}, received on {@code link}.
     *
     * @param openHostname the hostname of the client's open, or null
     * @param serverName the configured name for requests that carry none
     * @param maxHeaderChars the most characters the method, the request-target and the headers may hold together
     *                       (Jetty's request header size): beyond, the request is answered 414 or 431
     * @param streamed the message holds only the header sections: the body streams in after the request
     */
    public void map(MessageView message, Link link, String openHostname, String serverName, int maxHeaderChars,
                    long beginNanoTime, boolean streamed, MappedRequest into) {
        // A typed body is decoded within the limits the connection's engine was configured with; the mapper is the
        // thread's, shared by connections, so a reader is made again only when those limits are not the last ones.
        DecoderLimits limits = link.session().engine().config().decoderLimits();
        if (!reader.limits().equals(limits)) {
            reader = new AmqpReader(limits);
        }
        // Routing fields first: even a request we answer with 400 is answered on its reply-to.
        if (message.replyTo(scratch) && scratch.length() > 0) {
            into.replyTo = replyTo(scratch);
            if (scratch.contentEquals(REPLY_TO_PAIRED_LINK)) {
                // Link pairing: "$me" names the other half of the pair the request came on.
                into.replyToPaired = true;
                into.pairedReplyLink = link.paired();
            }
        }
        if (!message.correlationId(into.correlationId)) {
            message.messageId(into.correlationId); // WD06: the response correlates to the message-id instead
        }
        attributes(message, link, into);
        if (into.replyToPaired && into.pairedReplyLink == null) {
            // Nowhere to answer: the servlet does not run, and the answer, finding no link, rejects the delivery
            // with amqp:not-found, as for any reply-to that names no reply node on the connection.
            reject(into, HttpStatus.BAD_REQUEST_400, "reply-to $me on a link that is not half of a link pair");
            return;
        }

        String method = method(message);
        if (method == null) {
            reject(into, HttpStatus.BAD_REQUEST_400, "the request message has no subject (the HTTP method) or it is not a token");
            return;
        }
        String target = target(message, link);
        if (target == null) {
            reject(into, HttpStatus.BAD_REQUEST_400, "the request message has no to and its link no target address");
            return;
        }
        if (targetAuthority != null && (targetAuthority.isEmpty() || targetAuthority.indexOf('@') >= 0)) {
            // RFC 9110 §4.2.1: an http(s) URI with an empty host is invalid; §4.2.4: userinfo is not to be sent.
            reject(into, HttpStatus.BAD_REQUEST_400, "absolute-form request target without a host, or with userinfo");
            return;
        }

        // As Jetty's HTTP connections bound a request's head by the request header size (RFC 9112 §3: 414 for a
        // target too long, RFC 6585 §5: 431 for the fields): a message may be 16 MiB, and every header becomes a
        // field object, the target a line of the request log.
        if (method.length() + target.length() > maxHeaderChars) {
            reject(into, HttpStatus.URI_TOO_LONG_414, "the request target is longer than the request header size ("
                    + maxHeaderChars + " characters)");
            return;
        }
        headerCharsLeft = maxHeaderChars - target.length() - method.length();

        HttpVersion version = version(message);
        if (version == null) {
            // The answer names what it did not know, but not at any length: the peer chose it.
            reject(into, HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505, "unsupported http:request version "
                    + (scratch.length() <= MAX_QUOTED_VERSION ? text(scratch) : "longer than " + MAX_QUOTED_VERSION
                    + " characters") + " (1.0, 1.1, 2 or 2.0)");
            return;
        }
        HttpFields.Mutable fields = HttpFields.build();
        // The headers first: the host application-property is one of them, found whatever the case of its name.
        String badHeader = headers(message, fields);
        if (badHeader != null) {
            reject(into, headerCharsLeft < 0 ? HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431
                    : HttpStatus.BAD_REQUEST_400, badHeader);
            return;
        }
        String host = host(message, openHostname, serverName);
        headerCharsLeft -= host.length();
        if (headerCharsLeft < 0) {
            reject(into, HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431, HEADERS_TOO_LARGE);
            return;
        }
        HostPortHttpField authority;
        try {
            authority = hostField(host);
        } catch (IllegalArgumentException | HttpException.RuntimeException e) {
            // Jetty 12.1 reports a bad authority as an HttpException (400 Bad HostPort), not always an
            // IllegalArgumentException: either is the client's mistake, answered 400.
            reject(into, HttpStatus.BAD_REQUEST_400, "invalid host " + host);
            return;
        }
        fields.add(authority);
        String contentType = null;
        if (message.contentType(scratch) && scratch.length() > 0) {
            contentType = text(scratch);
            headerCharsLeft -= contentType.length();
            // A symbol may hold any ASCII, CR and LF too: held to the rule of every other header value.
            if (!HeaderSyntax.isFieldValue(contentType)) {
                reject(into, HttpStatus.BAD_REQUEST_400, "content-type holds a control character");
                return;
            }
            fields.put(contentTypeField(contentType));
        }
        if (message.contentEncoding(scratch) && scratch.length() > 0) {
            String contentEncoding = text(scratch);
            headerCharsLeft -= contentEncoding.length();
            if (!HeaderSyntax.isFieldValue(contentEncoding)) {
                reject(into, HttpStatus.BAD_REQUEST_400, "content-encoding holds a control character");
                return;
            }
            fields.put(HttpHeader.CONTENT_ENCODING, contentEncoding);
        }
        if (headerCharsLeft < 0) {
            reject(into, HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431, HEADERS_TOO_LARGE);
            return;
        }

        // A streamed request's view holds only the header sections: its body comes later, chunk by chunk.
        byte[] body = streamed ? NO_BODY : body(message, into);
        if (into.jsonBody) {
            fields.put(JSON); // the servlet reads JSON, whatever the message's content-type said of an AMQP body
        } else if (contentType == null && message.body().kind() == MessageSection.AMQP_VALUE
                && reader.type() == AmqpType.STRING && !fields.contains(HttpHeader.CONTENT_TYPE)) {
            // The default only: a content-type application-property names the text's type as it does for data.
            fields.put(TEXT_UTF8);
        }
        long contentLength = body.length;
        if (streamed) {
            // A streamed body's length is unknown until its last frame, unless the client declared it: then the
            // servlet sees that Content-Length, and StreamedRequest fails the body if it turns out otherwise.
            contentLength = contentLengthProperty == null ? -1 : contentLength(contentLengthProperty);
            if (contentLength < -1) {
                reject(into, HttpStatus.BAD_REQUEST_400,
                        "the content-length application-property is not a non-negative integer");
                return;
            }
        }
        if (contentLength > 0 || streamed && contentLength == 0) {
            fields.put(contentLengthField(contentLength));
        }
        try {
            into.request = new MetaData.Request(beginNanoTime, method, targetScheme != null ? targetScheme : scheme,
                    authority, target, version, fields, contentLength);
        } catch (IllegalArgumentException | HttpException.RuntimeException e) {
            reject(into, HttpStatus.BAD_REQUEST_400, "invalid request target " + target);
            return;
        }
        into.body = body;
    }

    private HttpField contentTypeField(String contentType) {
        HttpField last = lastContentType;
        if (last == null || !last.getValue().equals(contentType)) {
            last = new HttpField(HttpHeader.CONTENT_TYPE, contentType);
            lastContentType = last;
        }
        return last;
    }

    /**
     * A {@code content-length} field we made from a number: its value list is that one value. Jetty checks every
     * request's content-length for repeated values ({@code ComplianceUtils.verify}, whatever the connector) by asking
     * for the list, which a plain field parses as a quoted comma-separated list: about 300 bytes of parser objects
     * per request, measured with JFR's allocation samples.
     */
    static final class ContentLengthField extends HttpField.LongValueHttpField {
        private final List<String> values;

        ContentLengthField(long length) {
            super(HttpHeader.CONTENT_LENGTH, length);
            values = List.of(getValue());
        }

        @Override
        public String[] getValues() {
            return new String[] {getValue()};
        }

        @Override
        public List<String> getValueList() {
            return values;
        }

        @Override
        public List<String> getValueList(boolean keepQuotes) {
            return values;
        }
    }

    /** A {@code host} field we made: its value list is its one value (see {@link ContentLengthField} for why). */
    static final class HostField extends HostPortHttpField {
        private final List<String> values;

        HostField(String authority) {
            super(authority);
            values = List.of(getValue());
        }

        @Override
        public String[] getValues() {
            return new String[] {getValue()};
        }

        @Override
        public List<String> getValueList() {
            return values;
        }

        @Override
        public List<String> getValueList(boolean keepQuotes) {
            return values;
        }
    }

    /** The host field for {@code host}: the previous request's when the host is the same (fields are immutable). */
    private HostPortHttpField hostField(String host) {
        HostField last = lastHost;
        if (last == null || !last.getValue().equals(host)) {
            last = new HostField(host);
            lastHost = last;
        }
        return last;
    }

    private HttpField contentLengthField(long contentLength) {
        HttpField.LongValueHttpField last = lastContentLength;
        if (last == null || last.getLongValue() != contentLength) {
            last = new ContentLengthField(contentLength);
            lastContentLength = last;
        }
        return last;
    }

    /**
     * The reply-to as an array of its own: the previous request's array when it is the same address (a client
     * sends all its requests with one reply-to, usually), else a copy. Exchanges only read these arrays, so one
     * may be shared by many.
     */
    private byte[] replyTo(MutableBytes address) {
        byte[] last = lastReplyTo;
        if (last != null && Arrays.equals(last, 0, last.length, address.array(), 0, address.length())) {
            return last;
        }
        last = Arrays.copyOf(address.array(), address.length());
        lastReplyTo = last;
        return last;
    }

    /** The values of the fixed {@link AmqpRequestAttributes}: message fields only, never a peer-chosen name. */
    private void attributes(MessageView message, Link link, MappedRequest into) {
        if (message.messageId(id.clear())) {
            into.messageIdAttribute = idValue(id);
        }
        if (message.correlationId(id.clear())) {
            into.correlationIdAttribute = idValue(id);
        }
        MutableBytes linkAddress = link.target().address();
        if (!linkAddress.isNull() && linkAddress.length() > 0) {
            into.linkAddress = recentLinkAddress.of(linkAddress);
        }
        // AMQP 1.0 §3.2.1: delivery-count is a uint, 0 when the header (or the field) is absent.
        into.deliveryCount = message.positionOnHeaderField(Header.DELIVERY_COUNT, reader) ? reader.getUnsignedInt() : 0;
        into.durable = message.positionOnHeaderField(Header.DURABLE, reader) && reader.getBoolean();
        into.expiresAtMillis = expiry(message);
    }

    /**
     * When the message expires (AMQP 1.0 §3.2.1 ttl, §3.2.4 absolute-expiry-time), in milliseconds since the epoch;
     * 0 for never. The absolute time rules when there is one; a ttl counts from the creation-time. A ttl without a
     * creation-time counts from when this gateway received the message, which is when it is served, so it never
     * expires here (a broker that held the message applies it itself, and may set absolute-expiry-time).
     */
    private long expiry(MessageView message) {
        if (message.positionOnPropertiesField(Properties.ABSOLUTE_EXPIRY_TIME, reader)) {
            long absolute = reader.getTimestamp();
            if (absolute > 0) {
                return absolute;
            }
        }
        if (message.positionOnHeaderField(Header.TTL, reader)) {
            long ttl = reader.getUnsignedInt();
            if (ttl > 0 && message.positionOnPropertiesField(Properties.CREATION_TIME, reader)) {
                long created = reader.getTimestamp();
                if (created > 0) {
                    return created + ttl;
                }
            }
        }
        return 0;
    }

    /** A message-id or correlation-id as the Java value its attribute holds; null when absent. */
    private static Object idValue(MessageId id) {
        switch (id.kind()) {
            case ULONG:
                return id.ulongValue();
            case UUID:
                return new UUID(id.uuidMostSignificantBits(), id.uuidLeastSignificantBits());
            case BINARY:
                return id.bytes().toByteArray();
            case STRING:
                return id.bytes().toString();
            default:
                return null;
        }
    }

    private static void reject(MappedRequest into, int status, String reason) {
        into.refuse(status, reason);
    }

    /** The subject as an HTTP method, or null when absent or not an RFC 9110 token. */
    private String method(MessageView message) {
        if (!message.subject(scratch) || scratch.length() == 0) {
            return null;
        }
        byte[] b = scratch.array();
        for (int i = 0; i < scratch.length(); i++) {
            if (!HttpTokens.getToken(b[i]).isRfc2616Token()) { // RFC 9110 §5.6.2 tchar
                return null;
            }
        }
        return KnownStrings.CACHE.get(b, 0, scratch.length());
    }

    /**
     * The request-target: {@code to}, else the link's target address; any {@code amqp://host:port} prefix dropped,
     * then percent-encoded where a URI forbids the character (WD06 §3.1: addresses are not URI-encoded on the wire),
     * keeping valid escapes. An address without a leading slash (a plain node name) gets one. An {@code http://} or
     * {@code https://} address is the absolute-form (RFC 9112 §3.2.2, which a server must accept): its path and
     * query are the target, its scheme and authority are kept in {@link #targetScheme} and {@link #targetAuthority}
     * (null for any other form).
     */
    private String target(MessageView message, Link link) {
        targetScheme = null;
        targetAuthority = null;
        String address;
        if (message.to(scratch) && scratch.length() > 0) {
            address = recentTarget.of(scratch);
        } else {
            MutableBytes linkAddress = link.target().address();
            if (linkAddress.isNull() || linkAddress.length() == 0) {
                return null;
            }
            address = recentTarget.of(linkAddress);
        }
        address = stripAmqpAuthority(address);
        int authority = httpAuthorityStart(address);
        if (authority > 0) {
            int end = authority;
            while (end < address.length() && "/?#".indexOf(address.charAt(end)) < 0) {
                end++;
            }
            targetScheme = authority == 7 ? "http" : "https";
            targetAuthority = address.substring(authority, end);
            address = address.substring(end);
        }
        if (address.isEmpty() || address.charAt(0) != '/') {
            address = "/" + address;
        }
        return PercentEncoder.REQUEST_TARGET.encode(address);
    }

    /** Where the authority of an {@code http://} or {@code https://} address starts (7 or 8), else 0. */
    private static int httpAuthorityStart(String address) {
        if (address.regionMatches(true, 0, "http://", 0, 7)) {
            return 7;
        }
        if (address.regionMatches(true, 0, "https://", 0, 8)) {
            return 8;
        }
        return 0;
    }

    /** {@code amqp://host:5672/path?q} and {@code amqps://...} become {@code /path?q}; anything else is unchanged. */
    static String stripAmqpAuthority(String address) {
        int authority;
        if (address.regionMatches(true, 0, "amqp://", 0, 7)) {
            authority = 7;
        } else if (address.regionMatches(true, 0, "amqps://", 0, 8)) {
            authority = 8;
        } else {
            return address;
        }
        for (int i = authority; i < address.length(); i++) {
            char c = address.charAt(i);
            if (c == '/' || c == '?') {
                return c == '/' ? address.substring(i) : "/" + address.substring(i);
            }
        }
        return "/";
    }

    /**
     * docs/design.md §3: app-prop {@code http:request} names the version, HTTP/1.1 when absent (or not a string); null
     * for a version we do not know, which answers 505 (RFC 9110 §15.6.6).
     */
    private HttpVersion version(MessageView message) {
        if (!message.applicationProperty("http:request", scratch) || scratch.contentEquals("1.1")) {
            return HttpVersion.HTTP_1_1;
        }
        if (scratch.contentEquals("1.0")) {
            return HttpVersion.HTTP_1_0;
        }
        if (scratch.contentEquals("2") || scratch.contentEquals("2.0")) {
            return HttpVersion.HTTP_2;
        }
        return null;
    }

    /**
     * docs/design.md §3's Host rule, with the authority of an absolute-form target second: RFC 9112 §3.2.2 has it
     * replace the Host header (here the {@code host} application-property); {@code http:host} still names the host.
     */
    private String host(MessageView message, String openHostname, String serverName) {
        if (message.applicationProperty("http:host", scratch) && scratch.length() > 0) {
            return text(scratch);
        }
        if (targetAuthority != null) {
            return targetAuthority;
        }
        if (hostProperty != null && !hostProperty.isEmpty()) {
            return hostProperty;
        }
        if (openHostname != null && !openHostname.isEmpty()) {
            return openHostname;
        }
        return serverName;
    }

    /**
     * Copies the application-properties that are headers into {@code fields}: text keys not starting with
     * {@code http:} or {@code :}, names lowercased, scalar values in their text form. Fields the connector derives
     * itself (host, content-length, transfer-encoding) are not copied; content-length is kept for {@code map}, which
     * uses it for a streamed body only, and host for {@link #host}. Returns a reason when a name or value could
     * not be an HTTP field (so it could be used to inject one downstream), else null.
     */
    private String headers(MessageView message, HttpFields.Mutable fields) {
        contentLengthProperty = null;
        hostProperty = null;
        if (!message.openApplicationProperties(properties)) {
            return null;
        }
        while (properties.next()) {
            if (!properties.isStringKey() && !properties.isSymbolKey()) {
                continue; // AMQP 1.0 §3.2.5: keys are strings; anything else is not a header
            }
            byte[] kb = properties.keyBytes();
            int ko = properties.keyOffset();
            int kl = properties.keyLength();
            if (kl == 0 || kb[ko] == ':' || startsWithHttpColon(kb, ko, kl)) {
                continue;
            }
            if (kl > headerCharsLeft) {
                headerCharsLeft = -1;
                return HEADERS_TOO_LARGE; // and never quoted below, whatever its bytes
            }
            for (int i = ko; i < ko + kl; i++) {
                if (!HttpTokens.getToken(kb[i]).isRfc2616Token()) {
                    return "application-property " + Utf8.decode(kb, ko, kl) + " is not an HTTP field name";
                }
            }
            String name = KnownStrings.CACHE.getLowerCase(kb, ko, kl);
            headerCharsLeft -= name.length();
            if (headerCharsLeft < 0) {
                return HEADERS_TOO_LARGE; // before the field is made: a message may hold millions
            }
            if ("content-length".equals(name)) {
                // Kept aside: only a streamed body takes it (see map); a whole body's length is known exactly.
                contentLengthProperty = scalarText(properties.value());
                continue;
            }
            if ("host".equals(name)) {
                // Kept aside for the Host rule (see host): text only, the first one named so.
                AmqpReader value = properties.value();
                if (hostProperty == null && (value.type() == AmqpType.STRING || value.type() == AmqpType.SYMBOL)) {
                    hostProperty = KnownStrings.CACHE.get(value.buffer(), value.valueOffset(), value.valueLength());
                }
                continue; // counted as the Host, whichever rule names it (see map)
            }
            if ("transfer-encoding".equals(name)) {
                continue;
            }
            String value = scalarText(properties.value());
            if (value != null) {
                headerCharsLeft -= value.length();
            }
            if (headerCharsLeft < 0) {
                return HEADERS_TOO_LARGE;
            }
            if (value == null) {
                continue;
            }
            if (!HeaderSyntax.isFieldValue(value)) {
                return "application-property " + name + " holds a control character";
            }
            fields.add(name, value);
        }
        return null;
    }

    /**
     * A declared body length: RFC 9110 §8.6 {@code 1*DIGIT} (an integer property arrives here in decimal), or -2
     * when it is not one (negative, not a number, or beyond 18 digits, which no message could carry).
     */
    private static long contentLength(String text) {
        int n = text.length();
        if (n == 0 || n > 18) {
            return -2;
        }
        long value = 0;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -2;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static boolean startsWithHttpColon(byte[] b, int offset, int length) {
        return length >= 5 && (b[offset] | 0x20) == 'h' && (b[offset + 1] | 0x20) == 't'
                && (b[offset + 2] | 0x20) == 't' && (b[offset + 3] | 0x20) == 'p' && b[offset + 4] == ':';
    }

    /** A string, symbol or scalar as text; null for null, binary and compound values (not headers). */
    private static String scalarText(AmqpReader value) {
        switch (value.type()) {
            case STRING:
            case SYMBOL:
                return value.getString();
            case BOOLEAN:
                return value.getBoolean() ? "true" : "false";
            case UBYTE:
            case USHORT:
            case UINT:
            case BYTE:
            case SHORT:
            case INT:
            case LONG:
            case TIMESTAMP:
                return Long.toString(value.type() == AmqpType.TIMESTAMP ? value.getTimestamp() : value.getLong());
            case ULONG:
                return Long.toUnsignedString(value.getLong());
            case FLOAT:
                return Float.toString(value.getFloat());
            case DOUBLE:
                return Double.toString(value.getDouble());
            case UUID:
                return value.getUuid().toString();
            default:
                return null;
        }
    }

    /**
     * The body bytes: data sections concatenated, an amqp-value string's UTF-8 or binary's bytes, empty without a
     * body or with an amqp-value null; any other amqp-value, and amqp-sequence sections, as JSON text through the
     * AMQP↔JSON mapping (docs/mapping.md, "Typed bodies"). Every amqp-value but null, and amqp-sequence, also
     * becomes the request's typed value ({@link AmqpBody#REQUEST_VALUE}). Leaves {@link #reader} on the amqp-value
     * when there is one.
     */
    private byte[] body(MessageView message, MappedRequest into) {
        MessageSection kind = message.body().kind();
        if (kind == null) {
            return NO_BODY;
        }
        if (kind == MessageSection.DATA) {
            long length = message.body().dataLength();
            byte[] body = new byte[(int) length]; // bounded by the engine's max message size
            message.body().copyData(body, 0);
            return body;
        }
        if (kind == MessageSection.AMQP_VALUE) {
            message.positionOnAmqpValue(reader);
            AmqpType type = reader.type();
            if (type == AmqpType.STRING) {
                into.typedValue = reader.getString(); // validates the UTF-8; the body is the encoded bytes as they are
                return Arrays.copyOfRange(reader.buffer(), reader.valueOffset(), reader.valueOffset() + reader.valueLength());
            }
            if (type == AmqpType.BINARY) {
                // One copy serves as both: the body the servlet reads and the typed value (the same bytes).
                byte[] bytes = Arrays.copyOfRange(reader.buffer(), reader.valueOffset(),
                        reader.valueOffset() + reader.valueLength());
                into.typedValue = bytes;
                return bytes;
            }
            if (type == AmqpType.NULL) {
                // rhea (and other clients) encode a message without a body as amqp-value null (AMQP 1.0 §3.2.8).
                return NO_BODY;
            }
        }
        // Any other amqp-value, or amqp-sequence sections: typed. Made on the engine thread, once per such request;
        // the JSON writer is not kept (its buffer would grow to the largest body and stay).
        BodySections sections = message.body();
        long encodedBytes = sections.sectionEnd(sections.count() - 1) - sections.sectionStart(0);
        into.typedValue = ValueDecoder.decodeBody(message, reader,
                (int) Math.min(MAX_TYPED_VALUES, TYPED_VALUES_BEYOND_BYTES + encodedBytes));
        into.jsonBody = true;
        return new AmqpToJson(JsonForm.PLAIN, MAX_JSON_BODY_BYTES).body(message, reader).toByteArray();
    }

    /** A field's text as a String: the previous one when the bytes are the same (compared without decoding). */
    private static final class RecentText {
        private String last;

        String of(MutableBytes bytes) {
            String l = last;
            if (l != null && bytes.contentEquals(l)) {
                return l;
            }
            return last = text(bytes);
        }
    }

    private static String text(MutableBytes bytes) {
        return KnownStrings.CACHE.get(bytes.array(), 0, bytes.length());
    }
}
