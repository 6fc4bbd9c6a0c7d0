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

## The highest link handle a client may use in a session (AMQP 1.0 §2.7.2 handle-max): links per session, less one.
# amqp.handleMax=1023

## The links a client may have on one connection, all its sessions together; an attach past it ends its session
## with amqp:resource-limit-exceeded.
# amqp.maxLinksPerConnection=1024

## The bytes of names and termini (addresses, capabilities, filters) a client's attaches may leave on one
## connection's links, all its sessions together; an attach past it ends its session with
## amqp:resource-limit-exceeded.
# amqp.maxLinkBytesPerConnection=32768

## The largest request message, in bytes, summed over all its transfer frames.
# amqp.maxMessageSize=16777216

## Requests one connection may have unsettled at once.
# amqp.maxDeliveriesInFlight=1024

## Responses one connection may have sent and the client not yet settled; a request that would need one more
## is released unserved.
# amqp.maxUnsettledSentDeliveries=16384

## Responses held for one reply link whose client grants no credit; a request that would need one more is
## released unserved.
# amqp.maxBufferedMessagesPerLink=1024

## Response bytes held across the reply links of one connection while their clients grant no credit; a request
## past it is released unserved.
# amqp.maxBufferedBytesPerConnection=8388608

## A connection that sends nothing (not even a heartbeat) for this long is closed, in milliseconds;
## the open frame advertises half of it (AMQP 1.0 §2.4.5). This replaces the connector's idle timeout.
# amqp.idleTimeout=60000

## How long a frame may stay incomplete after its first byte, in milliseconds (0: no limit): any byte keeps the
## idle timeout at bay, so a frame sent a byte at a time would otherwise hold its buffer for ever. Past it the
## connection is closed with amqp:resource-limit-exceeded.
# amqp.partialFrameTimeout=30000

## The shortest idle-time-out a client may announce in its open, in milliseconds: we send something every half of
## it (AMQP 1.0 §2.4.5). A client that announces less gets our open, then a close with amqp:resource-limit-exceeded.
# amqp.minPeerIdleTimeout=100

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

## A session's incoming window, in transfer frames (AMQP 1.0 §2.5.6): with the frame size, what a request body
## whose servlet does not read can have buffered per session beyond the 256 KiB unread threshold.
# amqp.sessionIncomingWindow=16

## Encoded bytes each connection keeps ahead of its socket; past it, responses wait and the connection stops
## reading until the client has read (a client that stops reading costs this, not its credit and window).
# amqp.maxPendingOutputBytes=262144

## The most lists, maps, arrays and described values a client's frames and typed request bodies may nest at once;
## a frame nested deeper closes the connection, a request body nested deeper is rejected, with amqp:decode-error.
# amqp.maxDecodeDepth=64

## The most elements one list, map or array a client sends may declare (a map's keys and values each count); past
## it, as past amqp.maxDecodeDepth.
# amqp.maxDecodeElements=1048576

## Server-wide limits, shared by all connections of one AMQP connector (docs/jetty.md, "Server-wide limits").
## The most AMQP connections open at once; one more is opened, then closed with amqp:resource-limit-exceeded.
# amqp.maxConnections=4096

## The most connections between accept and the client's open (header, SASL, open). When full, the oldest
## handshake stalled 2 s or more ends to make room for a new connection; when none has, the new one is closed.
# amqp.maxHandshakingConnections=256

## Limits per source address (an IPv4 address, an IPv6 /64), so one machine cannot fill the server-wide ones
## (docs/jetty.md, "Limits per source address"); 0 turns one off. Behind a load balancer every client has its
## address: enable amqp-proxy-protocol (the balancer sends the PROXY protocol), or set them to 0.
## The most AMQP connections one address keeps open; one more is opened, then closed with
## amqp:resource-limit-exceeded naming the limit.
# amqp.maxConnectionsPerAddress=512

## The most connections of one address between accept and open. When full, its oldest handshake stalled 2 s or
## more ends to make room; when none has, its new connection is closed at once.
# amqp.maxHandshakesPerAddress=32

## The failed SASL logins one address may have in a burst, and again per window (ms), one coming back every
## window / max: past it a login from that address is refused with sasl-outcome sys-temp before its password is
## checked, so it cannot guess passwords as fast as it can connect. A successful login costs nothing.
# amqp.maxFailedLoginsPerAddress=10
# amqp.failedLoginsWindowMillis=60000

## The bytes all connections together may buffer (request bodies not yet read, responses not yet written);
## while they are used up, no credit is granted, no session window reopened, and new requests are released.
# amqp.maxBufferedBytes=67108864

## Properties the open offers to clients (AMQP 1.0 §2.7.1), KEY=VALUE pairs separated by commas. RabbitMQ's
## AMQP 1.0 clients want product=RabbitMQ,version=4.0.0,node=NAME (docs/jetty-module.md).
# amqp.connectionProperties=

## How long a client has to answer our close (a graceful stop, an idle timeout) before it is dropped, in ms.
# amqp.closeTimeout=5000
## The idle-time-out announced to Qpid JMS clients (ms), so they heartbeat often enough to flush the end of an
## upload they hold back (docs/jetty.md, Streaming); 0 treats them like other clients.
# amqp.qpidJmsHeartbeat=1000
