# The AMQP 1.0 engine settings shared by the amqp, amqps and amqp-detect connectors (docs/jetty-module.md).

[description]
The amqp-servlet libraries and the AMQP engine settings shared by the amqp, amqps and amqp-detect modules.
Enable one of those; this module comes with them.

[tags]
connector
amqp
internal

[depend]
server
security

[lib]
lib/amqp/*.jar

[xml]
etc/jetty-amqp-base.xml

[ini-template]
### AMQP 1.0 engine settings, for every AMQP connector of this server

## The largest frame this server accepts, in bytes (AMQP 1.0 §2.7.1 max-frame-size; at least 512).
# amqp.maxFrameSize=65536

## The highest channel (session) number a client may use (AMQP 1.0 §2.7.1 channel-max).
# amqp.channelMax=255

## The largest request message, in bytes, summed over all its transfer frames.
# amqp.maxMessageSize=16777216

## Requests one connection may have unsettled at once.
# amqp.maxDeliveriesInFlight=1024

## A connection that sends nothing (not even a heartbeat) for this long is closed, in milliseconds;
## the open frame advertises half of it (AMQP 1.0 §2.4.5). This replaces the connector's idle timeout.
# amqp.idleTimeout=60000

## How long a client has to finish SASL, in milliseconds.
# amqp.saslTimeout=10000

## Whether SASL ANONYMOUS is offered (a client without credentials is served, as no user).
# amqp.anonymousAllowed=true

## Whether a client must start with SASL (false also accepts clients that open without it, as anonymous).
# amqp.saslRequired=true

## The Host of requests that name none (no http:host/host application-property, no open hostname).
# amqp.serverName=localhost

## The credit granted on each link clients send requests on: requests in flight per link.
# amqp.linkCredit=100
