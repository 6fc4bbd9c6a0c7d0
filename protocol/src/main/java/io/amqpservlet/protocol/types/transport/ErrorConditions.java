package io.amqpservlet.protocol.types.transport;

import io.amqpservlet.protocol.types.Symbol;

/** The error condition symbols the spec defines (AMQP 1.0 §2.8.15 to §2.8.18), for {@link ErrorCondition}. */
public final class ErrorConditions {
    private ErrorConditions() {
    }

    // AMQP 1.0 §2.8.15: amqp-error.
    /** {@code amqp:internal-error}. */
    public static final Symbol INTERNAL_ERROR = Symbol.of("amqp:internal-error");
    /** {@code amqp:not-found}. */
    public static final Symbol NOT_FOUND = Symbol.of("amqp:not-found");
    /** {@code amqp:unauthorized-access}. */
    public static final Symbol UNAUTHORIZED_ACCESS = Symbol.of("amqp:unauthorized-access");
    /** {@code amqp:decode-error}. */
    public static final Symbol DECODE_ERROR = Symbol.of("amqp:decode-error");
    /** {@code amqp:resource-limit-exceeded}. */
    public static final Symbol RESOURCE_LIMIT_EXCEEDED = Symbol.of("amqp:resource-limit-exceeded");
    /** {@code amqp:not-allowed}. */
    public static final Symbol NOT_ALLOWED = Symbol.of("amqp:not-allowed");
    /** {@code amqp:invalid-field}. */
    public static final Symbol INVALID_FIELD = Symbol.of("amqp:invalid-field");
    /** {@code amqp:not-implemented}. */
    public static final Symbol NOT_IMPLEMENTED = Symbol.of("amqp:not-implemented");
    /** {@code amqp:resource-locked}. */
    public static final Symbol RESOURCE_LOCKED = Symbol.of("amqp:resource-locked");
    /** {@code amqp:precondition-failed}. */
    public static final Symbol PRECONDITION_FAILED = Symbol.of("amqp:precondition-failed");
    /** {@code amqp:resource-deleted}. */
    public static final Symbol RESOURCE_DELETED = Symbol.of("amqp:resource-deleted");
    /** {@code amqp:illegal-state}. */
    public static final Symbol ILLEGAL_STATE = Symbol.of("amqp:illegal-state");
    /** {@code amqp:frame-size-too-small}. */
    public static final Symbol FRAME_SIZE_TOO_SMALL = Symbol.of("amqp:frame-size-too-small");

    // AMQP 1.0 §2.8.16: connection-error.
    /** {@code amqp:connection:forced}. */
    public static final Symbol CONNECTION_FORCED = Symbol.of("amqp:connection:forced");
    /** {@code amqp:connection:framing-error}. */
    public static final Symbol CONNECTION_FRAMING_ERROR = Symbol.of("amqp:connection:framing-error");
    /** {@code amqp:connection:redirect}. */
    public static final Symbol CONNECTION_REDIRECT = Symbol.of("amqp:connection:redirect");

    // AMQP 1.0 §2.8.17: session-error.
    /** {@code amqp:session:window-violation}. */
    public static final Symbol SESSION_WINDOW_VIOLATION = Symbol.of("amqp:session:window-violation");
    /** {@code amqp:session:errant-link}. */
    public static final Symbol SESSION_ERRANT_LINK = Symbol.of("amqp:session:errant-link");
    /** {@code amqp:session:handle-in-use}. */
    public static final Symbol SESSION_HANDLE_IN_USE = Symbol.of("amqp:session:handle-in-use");
    /** {@code amqp:session:unattached-handle}. */
    public static final Symbol SESSION_UNATTACHED_HANDLE = Symbol.of("amqp:session:unattached-handle");

    // AMQP 1.0 §2.8.18: link-error.
    /** {@code amqp:link:detach-forced}. */
    public static final Symbol LINK_DETACH_FORCED = Symbol.of("amqp:link:detach-forced");
    /** {@code amqp:link:transfer-limit-exceeded}. */
    public static final Symbol LINK_TRANSFER_LIMIT_EXCEEDED = Symbol.of("amqp:link:transfer-limit-exceeded");
    /** {@code amqp:link:message-size-exceeded}. */
    public static final Symbol LINK_MESSAGE_SIZE_EXCEEDED = Symbol.of("amqp:link:message-size-exceeded");
    /** {@code amqp:link:redirect}. */
    public static final Symbol LINK_REDIRECT = Symbol.of("amqp:link:redirect");
    /** {@code amqp:link:stolen}. */
    public static final Symbol LINK_STOLEN = Symbol.of("amqp:link:stolen");
}
