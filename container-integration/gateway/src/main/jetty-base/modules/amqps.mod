# AMQP 1.0 over TLS (AMQPS) connector for amqp-servlet (docs/jetty-module.md).

[description]
Adds a TLS connector that serves AMQP 1.0 clients (AMQPS), with the key store of module ssl-context. With
amqp.ssl.saslExternal=true and client certificates wanted or needed (jetty.sslContext.wantClientAuth or
needClientAuth), a client certificate's subject DN is the SASL EXTERNAL identity.

[tags]
connector
amqp
ssl

[depend]
amqp-base
ssl-context

[xml]
etc/jetty-amqps.xml

[ini-template]
### AMQP 1.0 over TLS connector; keys and client authentication are in ssl-context.ini

## The host/address to bind the connector to (all addresses when unset).
# amqp.ssl.host=0.0.0.0

## The port the connector listens on (5671 is AMQPS's IANA port).
# amqp.ssl.port=5671

## Offer SASL EXTERNAL to clients that present a certificate: the user is its subject DN (RFC 2253).
# amqp.ssl.saslExternal=false

## The number of acceptors (-1 picks a default based on the number of cores).
# amqp.ssl.acceptors=1

## The number of selectors (-1 picks a default based on the number of cores).
# amqp.ssl.selectors=-1

## The listen backlog: connections the kernel queues before they are accepted (capped by net.core.somaxconn).
# amqp.ssl.acceptQueueSize=1024

## How long a servlet may take to answer a request, in ms (then 503 and the request is released); 0: no limit.
# amqp.requestTimeout=30000

## How long a connection holds a ready response back while it still serves others, in µs, so that they leave in
## one write; 0: never.
# amqp.writeCoalescing=200
