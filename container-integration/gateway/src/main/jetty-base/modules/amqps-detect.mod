# AMQP 1.0 with and without TLS on the AMQPS port, for amqp-servlet (docs/jetty-module.md).

[description]
Lets the AMQPS connector (module amqps) also serve clear-text AMQP 1.0 clients: a connection that starts with a
TLS handshake is AMQPS, any other (the AMQP protocol header) is AMQP. SASL EXTERNAL, when on, is offered only to
TLS clients with a certificate.

[tags]
connector
amqp
ssl

[depend]
amqps

[xml]
etc/jetty-amqps-detect.xml
