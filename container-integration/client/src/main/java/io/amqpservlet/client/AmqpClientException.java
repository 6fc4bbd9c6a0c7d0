package io.amqpservlet.client;

import java.io.IOException;

/**
 * A request that produced no HTTP response: the connection could not be made, SASL refused us, the server closed
 * the connection or settled the request without answering, or the time ran out. {@link #exitCode()} is the process
 * exit status the CLI uses for it, chosen to match curl's where curl has one.
 */
public final class AmqpClientException extends IOException {
    private static final long serialVersionUID = 1L;

    /** curl 35: the TLS handshake failed (other than the server's certificate). */
    public static final int TLS_FAILED = 35;
    /** curl 60: the server's certificate is not trusted or not for the host. */
    public static final int PEER_CERTIFICATE = 60;
    /** curl 58: the client certificate (--cert) could not be used. */
    public static final int LOCAL_CERTIFICATE = 58;
    /** curl 77: the trusted certificates (--cacert) could not be read. */
    public static final int CA_CERTIFICATES = 77;
    /** curl 7: failed to connect to host. */
    public static final int CONNECT_FAILED = 7;
    /** curl 6: could not resolve host. */
    public static final int UNKNOWN_HOST = 6;
    /** curl 28: operation timed out. */
    public static final int TIMEOUT = 28;
    /** curl 56: failure receiving network data (the server closed the connection or refused the request). */
    public static final int PEER_FAILURE = 56;
    /** curl 8: weird server reply (the server does not speak AMQP 1.0: an HTTP port, a TLS port, AMQP 0-9-1). */
    public static final int NOT_AMQP = 8;
    /** curl 67: the login was denied (SASL outcome not ok). */
    public static final int LOGIN_DENIED = 67;

    /** The CLI's exit status for this failure. */
    private final int exitCode;

    /**
     * @param exitCode the CLI's exit status for this failure (one of the constants here)
     * @param message what failed, and where
     */
    public AmqpClientException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /**
     * @param exitCode the CLI's exit status for this failure (one of the constants here)
     * @param message what failed, and where
     * @param cause the exception that made it fail
     */
    public AmqpClientException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** {@return the CLI's exit status for this failure} */
    public int exitCode() {
        return exitCode;
    }
}
