# AMQP 1.0 and HTTP/1.1 on the same port, for amqp-servlet (docs/jetty-module.md).

[description]
Lets the clear-text HTTP connector (module http) also serve AMQP 1.0 clients: a connection whose first bytes are
the AMQP protocol header ("AMQP") is served as AMQP, any other as HTTP.

[tags]
connector
amqp

[depend]
amqp-base
http

[after]
http2c

[xml]
etc/jetty-amqp-detect.xml
