"""Proton-C's Python binding (Debian's python3-qpid-proton) as an AMQP client of the connector.

Run by ProtonCPythonInteropTest as ``/usr/bin/python3 proton_client.py PORT SCENARIO``. Each scenario talks to the
server over one BlockingConnection and prints one JSON object per response on stdout; the Java test checks them.
Anything going wrong raises, so the process exits non-zero with a traceback on stderr.

Scenarios:
  echo-get      GET /echo with x- headers, through SyncRequestResponse
  echo-post     POST /echo with a text body (an amqp-value string), through SyncRequestResponse
  echo-binary   POST /echo with a bytes body as Proton encodes it by default (an amqp-value binary)
  missing       GET /missing, through SyncRequestResponse
  throw         GET /throw, through SyncRequestResponse
  big-post      POST 5 MiB of random bytes (one data section) to /echo
  big-get       GET /bytes/5242880
  in-flight     100 requests to /barrier sent before any response is read, on one sender and one reply receiver
  queue NAME    POST to the queue NAME of a broker (PORT is the broker's), through SyncRequestResponse: a gateway in
                attach mode serves it and answers through the broker to the dynamic reply queue
  link-pair     a link pair as RabbitMQ's Python client attaches it (a sender and a receiver both named by Proton
                <container-id>-/management, both at /management, settled, link property paired=true), then
                GET /echo/queues/q1 with reply-to $me, answered on the receiver
  map-echo      POST /echo with a dict body (an amqp-value map): the servlet reads JSON, its JSON echo comes back as a map
  map-typed     PUT /typed/queue/orders with a dict body, answered with a typed map (ulong, uint, an array of strings)
"""
import hashlib
import json
import os
import sys

from proton import Array, Data, Link, Message, PropertyDict, symbol
from proton.reactor import LinkOption
from proton.utils import BlockingConnection, SyncRequestResponse

TIMEOUT_SECONDS = 30
FIVE_MIB = 5 * 1024 * 1024


def typed(value):
    """A decoded AMQP value as JSON, with the Python (Proton) type of every map value and array kept beside it."""
    if isinstance(value, dict):
        return {str(k): typed(v) for k, v in value.items()}
    if isinstance(value, Array):
        return {"array_of": Data.type_name(value.type), "elements": [typed(e) for e in value.elements]}
    if isinstance(value, list):
        return [typed(e) for e in value]
    return value


def types_of(value):
    """The Proton type name of each value of a map: ulong, uint, bool, str, symbol, dict, Array, ..."""
    return {str(k): type(v).__name__ for k, v in value.items()} if isinstance(value, dict) else {}


def describe(response, **extra):
    """The response as a JSON-friendly dict: what the test asserts on."""
    body = response.body
    if isinstance(body, memoryview):
        body = body.tobytes()
    out = {
        "status": response.subject,
        "correlation_id": response.correlation_id,
        "to": response.address,
        "content_type": response.content_type,
        "properties": dict(response.properties or {}),
        "body_type": type(body).__name__,
        # Proton reads a binary body as inferred when it came in data sections rather than an amqp-value.
        "inferred": bool(response.inferred),
    }
    if isinstance(body, (dict, list)):
        out["body_value"] = typed(body)
        out["body_types"] = types_of(body)
    if isinstance(body, str):
        body = body.encode("utf-8")
    if isinstance(body, bytes):
        out["body_length"] = len(body)
        out["body_sha256"] = hashlib.sha256(body).hexdigest()
        if len(body) <= 1024:
            out["body_text"] = body.decode("utf-8", errors="replace")
    out.update(extra)
    return out


def emit(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


def call(connection, request, **extra):
    """One request through SyncRequestResponse (anonymous sender, dynamic reply receiver)."""
    client = SyncRequestResponse(connection)
    response = client.call(request)
    # SyncRequestResponse sets its own string correlation-id and waits for a response carrying it.
    emit(describe(response, reply_to=client.reply_to, sent_correlation_id=request.correlation_id, **extra))


def in_flight(connection, count):
    sender = connection.create_sender(None)  # anonymous: each message names its node in `to`
    receiver = connection.create_receiver(None, dynamic=True, credit=count)
    reply_to = receiver.link.remote_source.address
    deliveries = []
    for i in range(count):
        request = Message(address="/barrier", subject="GET", reply_to=reply_to, id="m-%d" % i,
                          properties={"x-request": str(i)})
        # Not BlockingSender.send: it waits for settlement, which the connector gives only with the response.
        deliveries.append(sender.link.send(request))
    for _ in range(count):
        response = receiver.receive(timeout=TIMEOUT_SECONDS)
        receiver.accept()
        emit(describe(response, reply_to=reply_to))
    # At-least-once: every request is settled by the server once its response has been sent.
    connection.wait(lambda: all(d.settled for d in deliveries), timeout=TIMEOUT_SECONDS,
                    msg="waiting for the requests to be settled")
    emit({"settled": sum(1 for d in deliveries if d.settled)})


class PairedHalf(LinkOption):
    """Sets a link up as a half of a link pair, the way RabbitMQ's Python client does for its management links."""

    def __init__(self, address, sender):
        self.address = address
        self.sender = sender

    def apply(self, link):
        if self.sender:
            link.source.address = self.address
        else:
            link.target.address = self.address
        link.snd_settle_mode = Link.SND_SETTLED
        link.rcv_settle_mode = Link.RCV_FIRST
        link.properties = PropertyDict({symbol("paired"): True})


def link_pair(connection):
    sender = connection.create_sender("/management", options=PairedHalf("/management", True))
    receiver = connection.create_receiver("/management", options=PairedHalf("/management", False), credit=10)
    request = Message(address="/echo/queues/q1", subject="GET", reply_to="$me", id="py-pair-1")
    sender.send(request)
    response = receiver.receive(timeout=TIMEOUT_SECONDS)
    emit(describe(response, sender_name=sender.link.name, receiver_name=receiver.link.name,
                  sender_paired=dict(sender.link.remote_properties or {}).get("paired"),
                  receiver_paired=dict(receiver.link.remote_properties or {}).get("paired"),
                  receiver_settle_mode=receiver.link.remote_snd_settle_mode))


def main():
    port, scenario = sys.argv[1], sys.argv[2]
    connection = BlockingConnection("amqp://127.0.0.1:%s" % port, timeout=TIMEOUT_SECONDS)
    try:
        if scenario == "echo-get":
            call(connection, Message(address="/echo", subject="GET",
                                     properties={"x-trace": "py-get-1", "x-tenant": "blue"}))
        elif scenario == "echo-post":
            call(connection, Message(address="/echo?lang=py", subject="POST", body="grüße, 世界",
                                     properties={"x-trace": "py-post-1"}))
        elif scenario == "echo-binary":
            body = bytes(range(256))
            call(connection, Message(address="/echo", subject="POST", body=body,
                                     content_type="application/octet-stream"),
                 sent_length=len(body), sent_sha256=hashlib.sha256(body).hexdigest())
        elif scenario == "missing":
            call(connection, Message(address="/missing", subject="GET"))
        elif scenario == "throw":
            call(connection, Message(address="/throw", subject="GET"))
        elif scenario == "big-post":
            body = os.urandom(FIVE_MIB)
            request = Message(address="/echo", subject="POST", body=body, content_type="application/octet-stream")
            request.inferred = True  # a binary body as a data section rather than an amqp-value
            call(connection, request, sent_length=len(body), sent_sha256=hashlib.sha256(body).hexdigest())
        elif scenario == "big-get":
            call(connection, Message(address="/bytes/%d" % FIVE_MIB, subject="GET"))
        elif scenario == "map-echo":
            call(connection, Message(address="/echo", subject="POST",
                                     body={"name": "orders", "durable": True, "count": 3, "ratio": 0.5,
                                           "tags": ["a", "b"], "nested": {"none": None}}))
        elif scenario == "map-typed":
            call(connection, Message(address="/typed/queue/orders", subject="PUT",
                                     body={"durable": True, "arguments": {"x-queue-type": "quorum"}}))
        elif scenario == "in-flight":
            in_flight(connection, 100)
        elif scenario == "queue":
            call(connection, Message(address=sys.argv[3], subject="POST", body="through the broker",
                                     properties={"x-trace": "py-queue-1"}))
        elif scenario == "link-pair":
            link_pair(connection)
        else:
            raise ValueError("unknown scenario " + scenario)
    finally:
        connection.close()


if __name__ == "__main__":
    main()
