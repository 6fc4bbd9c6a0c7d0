# Attach mode for amqp-servlet: consume request queues of an AMQP broker (docs/attach.md, docs/jetty-module.md).

[description]
Connects out to an AMQP 1.0 broker (ActiveMQ Artemis, RabbitMQ, ...) and serves the request messages of one of its
queues with the server's handlers and web applications, answering each to its reply-to through the broker. Run it
on several servers to share one queue as competing consumers (amqp-servlet).

[tags]
connector
amqp

[depend]
amqp-base

[xml]
etc/jetty-amqp-attach.xml

[ini-template]
### Attach mode: the queue this server consumes (docs/attach.md)

## The broker and queue: amqp[s]://[user:password@]host[:port][,host[:port]...]/queue (the hosts are a failover
## list, tried in turn; user and password select SASL PLAIN, else ANONYMOUS). Required.
# amqp.attach.uri=amqp://guest:guest@127.0.0.1:5672/orders

## Requests of the queue in flight here at once (being served, or awaiting the broker's outcome for their
## response): the credit the broker is given. 0: half the thread pool's maximum.
# amqp.attach.credit=0

## The user servlets see on these requests (none when unset).
# amqp.attach.requestUser=

## Each request's user is its message's user-id (none without one). Only for a broker that checks the user-id of
## every message put on the queue against its sender's login (docs/attach.md), else anyone can claim to be anyone.
# amqp.attach.trustUserId=false

## Requests and responses pre-settled: no outcome is sent or awaited either way, and a request this gateway holds
## when it, its connection or the broker fails is lost rather than delivered again (docs/attach.md, "At most once").
# amqp.attach.atMostOnce=false

## TLS to an amqps:// broker: a PKCS12 key store with the client certificate to present, and the trust store for
## the broker's certificate (unset: the JVM's).
# amqp.attach.keyStorePath=
# amqp.attach.keyStorePassword=
# amqp.attach.trustStorePath=
# amqp.attach.trustStorePassword=

## Log in with SASL EXTERNAL: the client certificate is the identity (an amqps:// URI without a user).
# amqp.attach.saslExternal=false

## How long the broker has to answer each attach, in ms.
# amqp.attach.attachTimeout=10000

## How long the broker may send nothing before the connection is closed and made again, in ms; half of it is
## announced in the open, so the broker sends an empty frame at least that often (AMQP 1.0 §2.4.5). 0: never.
## Unset: amqp.idleTimeout.
# amqp.attach.idleTimeout=60000

## The shortest and longest delay before connecting again after a failure, in ms (doubling, with jitter).
# amqp.attach.minReconnectDelay=100
# amqp.attach.maxReconnectDelay=30000

## How long a servlet may take to answer a request, in ms (then 503, and the request is accepted so that the broker
## does not deliver it again); 0: no limit.
# amqp.attach.requestTimeout=30000

## How long a connection holds a ready response back while it still serves others, in µs, so that they leave in
## one write to the broker; 0: never.
# amqp.attach.writeCoalescing=200
