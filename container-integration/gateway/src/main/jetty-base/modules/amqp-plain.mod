# SASL PLAIN for AMQP clients, checked against a realm file, for amqp-servlet (docs/jetty-module.md).

[description]
Offers SASL PLAIN to AMQP clients, checking user names and passwords against a Jetty HashLoginService realm file
(the format of etc/realm.properties: "user: password, role1, role2"). The user and its roles are the request's.

[tags]
amqp
security

[depend]
amqp-base

[files]
# A commented realm file to add users to; kept if the base already has one.
basehome:modules/amqp-plain/amqp-realm.properties|etc/amqp-realm.properties

[xml]
etc/jetty-amqp-plain.xml

[ini-template]
### SASL PLAIN for AMQP clients

## The realm properties file, relative to $JETTY_BASE or absolute.
# amqp.plain.realmFile=etc/amqp-realm.properties

## The realm's name (as a web application's login-config would name it).
# amqp.plain.realmName=amqp
