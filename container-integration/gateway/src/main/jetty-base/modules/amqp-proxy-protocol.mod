# The PROXY protocol on the amqp connector (docs/jetty-module.md).

[description]
Reads the PROXY protocol (v1 or v2) on the amqp connector before AMQP, as a load balancer (HAProxy, a cloud
network load balancer) sends it: connections then have the client's address, not the balancer's, for the
per-address limits, the logs and the request's remote address. Only the balancer must reach the port: a
connection that does not start with a PROXY header is closed.

[tags]
connector
amqp

[depend]
amqp

[xml]
etc/jetty-amqp-proxy-protocol.xml
