package io.amqpservlet.spring.sample;

/**
 * What a client got for a request, in a form every client can tell: the status, and the body as text.
 *
 * @param status the HTTP status (an AMQP response's subject)
 * @param body the body as UTF-8 text
 */
public record Answer(int status, String body) {
}
