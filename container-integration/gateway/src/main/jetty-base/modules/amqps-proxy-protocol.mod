# The PROXY protocol on the amqps connector (docs/jetty-module.md).

[description]
Reads the PROXY protocol (v1 or v2) on the amqps connector before TLS, as a load balancer that passes TLS
through sends it: connections then have the client's address, not the balancer's, for the per-address limits,
the logs and the request's remote address. Only the balancer must reach the port: a connection that does not
start with a PROXY header is closed.

[tags]
connector
amqp

[depend]
amqps

[after]
amqps-detect

[xml]
etc/jetty-amqps-proxy-protocol.xml
