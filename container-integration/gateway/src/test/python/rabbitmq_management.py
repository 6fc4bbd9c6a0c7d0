"""RabbitMQ's Python AMQP 1.0 client (rabbitmq-amqp-python-client), unchanged, against the gateway's demo management
resource. Run by RabbitMqPythonClientInteropTest: argv[1] is the gateway's AMQP port. Prints one line per step and
exits non-zero (an uncaught exception) on the first surprise."""
import sys

from rabbitmq_amqp_python_client import (
    ClassicQueueSpecification,
    Environment,
    ExchangeSpecification,
    ExchangeToQueueBindingSpecification,
    QuorumQueueSpecification,
    ValidationCodeException,
)

port = int(sys.argv[1])
# No user in the URI: the gateway has no users and serves an anonymous client.
environment = Environment("amqp://127.0.0.1:%d/" % port)
connection = environment.connection()
connection.dial()
management = connection.management()

queue = "py q \u00e9;1"
management.declare_queue(ClassicQueueSpecification(name=queue, is_auto_delete=False, max_len=10))
management.declare_queue(ClassicQueueSpecification(name=queue, is_auto_delete=False, max_len=10))  # 200: exists
print("declared")
try:
    management.declare_queue(ClassicQueueSpecification(name=queue, is_auto_delete=True, max_len=10))
    raise AssertionError("a declaration with other properties was accepted")
except ValidationCodeException as conflict:
    print("conflict", conflict)

info = management.queue_info(queue)
assert info.name == queue, info.name
assert info.is_durable is True and info.is_auto_delete is False and info.is_exclusive is False, info
assert info.arguments["x-max-length"] == 10, info.arguments
assert info.leader == "amqp-servlet", info.leader
assert list(info.members) == ["amqp-servlet"], info.members
assert info.message_count == 0 and info.consumer_count == 0, info
print("info", info.name, info.queue_type, type(info.message_count).__name__, type(info.consumer_count).__name__,
      type(info.members).__name__)

management.declare_queue(QuorumQueueSpecification(name="py-quorum"))
assert management.queue_info("py-quorum").queue_type.value == "quorum"

management.declare_exchange(ExchangeSpecification(name="py-x"))
binding = management.bind(ExchangeToQueueBindingSpecification(source_exchange="py-x", destination_queue=queue,
                                                              binding_key="k;1"))
print("bound", binding)
management.unbind(binding)
print("purged", management.purge_queue(queue))

management.delete_queue(queue)
management.delete_queue("py-quorum")
try:
    management.queue_info(queue)
    raise AssertionError("a deleted queue still has info")
except ValidationCodeException as gone:
    print("gone", gone)
management.delete_exchange("py-x")
print("deleted")

management.close()
connection.close()
environment.close()
print("ok")
