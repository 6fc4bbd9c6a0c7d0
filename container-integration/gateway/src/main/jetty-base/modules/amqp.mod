# AMQP 1.0 (HTTP over AMQP) connector for amqp-servlet (docs/jetty-module.md).

[description]
Adds a connector that serves AMQP 1.0 clients: each request message is handled by the server's handlers and
web applications as an HTTP request, and answered with a response message (amqp-servlet).

[tags]
connector
amqp

[depend]
amqp-base

[xml]
etc/jetty-amqp.xml

[ini-template]
### AMQP 1.0 connector (plain TCP); engine settings are in amqp-base.ini

## The host/address to bind the connector to (all addresses when unset).
# amqp.host=0.0.0.0

## The port the connector listens on (5672 is AMQP's IANA port).
# amqp.port=5672

## The number of acceptors (-1 picks a default based on the number of cores).
# amqp.acceptors=1

## The number of selectors (-1 picks a default based on the number of cores).
# amqp.selectors=-1

## The listen backlog: connections the kernel queues before they are accepted (capped by net.core.somaxconn).
# amqp.acceptQueueSize=1024

## How long a servlet may take to answer a request, in ms (then 503 and the request is released); 0: no limit.
# amqp.requestTimeout=30000

## How long a connection holds a ready response back while it still serves others, in µs, so that they leave in
## one write; 0: never.
# amqp.writeCoalescing=200
