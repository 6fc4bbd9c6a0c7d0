// rhea (the npm package, pinned by package-lock.json) as an AMQP client of the connector.
//
// Run by RheaInteropTest as `node rhea-client.js PORT SCENARIO [sasl-anonymous]`: rhea opens without SASL unless
// given a user; with `sasl-anonymous` it authenticates with SASL ANONYMOUS. Each scenario opens one connection with a dynamic
// reply receiver and an anonymous sender (target address null, routed by `to`), and prints one JSON object per
// response on stdout; the Java test checks them. Anything going wrong prints to stderr and exits non-zero.
//
// Scenarios: echo-get, echo-post, missing, throw, big-post (5 MiB to /echo as one data section), big-get
// (/bytes/5242880), in-flight (100 requests to /barrier sent before any response is read), map-echo (an object body,
// which rhea sends as an amqp-value map, to /echo: the servlet reads JSON and its JSON echo comes back as a map),
// map-typed (an object body to /typed/queue/orders, answered with a typed map).
'use strict';
const crypto = require('crypto');
const rhea = require('rhea');

const TIMEOUT_MILLIS = 60000;
const FIVE_MIB = 5 * 1024 * 1024;

function die(what) {
  process.stderr.write(String(what) + '\n');
  process.exit(1);
}

function sha256(buffer) {
  return crypto.createHash('sha256').update(buffer).digest('hex');
}

// The response as a JSON-friendly object: what the test asserts on.
function describe(message, extra) {
  let body = message.body;
  let bodyType;
  if (body && body.typecode === 0x75) { // a data section (rhea keeps several as content[])
    bodyType = body.multiple ? 'data*' + body.content.length : 'data';
    body = body.multiple ? Buffer.concat(body.content) : body.content;
  } else if (typeof body === 'string') {
    bodyType = 'string';
    body = Buffer.from(body, 'utf8');
  } else if (Buffer.isBuffer(body)) {
    bodyType = 'binary';
  } else if (body !== null && typeof body === 'object') {
    bodyType = Array.isArray(body) ? 'list' : 'map'; // an amqp-value list or map, decoded by rhea
  } else {
    bodyType = body === undefined ? 'none' : typeof body;
  }
  const out = {
    status: message.subject,
    correlation_id: message.correlation_id,
    to: message.to,
    content_type: message.content_type === undefined ? null : message.content_type,
    properties: message.application_properties || {},
    body_type: bodyType,
  };
  if (bodyType === 'map' || bodyType === 'list') {
    out.body_value = body;
  } else if (Buffer.isBuffer(body)) {
    out.body_length = body.length;
    out.body_sha256 = sha256(body);
    if (body.length <= 1024) out.body_text = body.toString('utf8');
  }
  return Object.assign(out, extra);
}

function emit(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

// Sends each request as credit allows; resolves with the responses (in arrival order) once every response has
// arrived and every request has been settled by the server (it settles a request when its response is sent).
function exchange(connection, sender, receiver, requests) {
  return new Promise((resolve) => {
    const responses = [];
    const deliveries = [];
    let next = 0;
    let settled = 0;
    const done = () => {
      if (responses.length === requests.length && settled === requests.length) resolve({responses, settled});
    };
    const pump = () => {
      while (next < requests.length && sender.sendable()) {
        deliveries.push(sender.send(requests[next++]));
      }
    };
    sender.on('sendable', pump);
    sender.on('settled', () => { settled++; done(); });
    receiver.on('message', (context) => { responses.push(context.message); done(); });
    pump();
  });
}

function open(port, saslAnonymous) {
  return new Promise((resolve) => {
    const container = rhea.create_container({id: 'rhea-interop'});
    const options = {host: '127.0.0.1', port: Number(port), reconnect: false};
    if (saslAnonymous) options.username = 'anonymous'; // a user without a password: rhea uses SASL ANONYMOUS
    const connection = container.connect(options);
    for (const event of ['connection_error', 'sender_error', 'receiver_error', 'session_error']) {
      connection.on(event, (context) => die(event + ': ' + JSON.stringify(context[event.split('_')[0]].error)));
    }
    connection.on('disconnected', (context) => die('disconnected: ' + (context.error || 'by the server')));
    const receiver = connection.open_receiver({source: {dynamic: true}, credit_window: 100});
    const sender = connection.open_sender({target: {}});
    let replyTo;
    let ready = false;
    const check = () => {
      if (!ready && replyTo && sender.is_open()) {
        ready = true;
        resolve({connection, sender, receiver, replyTo});
      }
    };
    receiver.once('receiver_open', (context) => { replyTo = context.receiver.source.address; check(); });
    sender.once('sender_open', check);
  });
}

async function call(link, request, extra) {
  request.reply_to = link.replyTo;
  const {responses} = await exchange(link.connection, link.sender, link.receiver, [request]);
  const sent = request.correlation_id !== undefined ? request.correlation_id : request.message_id;
  emit(describe(responses[0], Object.assign({reply_to: link.replyTo, sent_correlation_id: sent}, extra)));
}

async function main() {
  const [port, scenario, sasl] = process.argv.slice(2);
  const timer = setTimeout(() => die('no result within ' + TIMEOUT_MILLIS + ' ms'), TIMEOUT_MILLIS);
  const link = await open(port, sasl === 'sasl-anonymous');
  switch (scenario) {
    case 'echo-get':
      await call(link, {to: '/echo', subject: 'GET', message_id: 'rhea-get-1',
        application_properties: {'x-trace': 'rhea-get-1', 'x-tenant': 'green'}});
      break;
    case 'echo-post':
      // An application correlation-id wins over the message-id.
      await call(link, {to: '/echo?lang=js', subject: 'POST', message_id: 'rhea-post-1', correlation_id: 'order-77',
        body: 'grüße, 世界', application_properties: {'x-trace': 'rhea-post-1'}});
      break;
    case 'missing':
      await call(link, {to: '/missing', subject: 'GET', message_id: 'rhea-404'});
      break;
    case 'throw':
      await call(link, {to: '/throw', subject: 'GET', message_id: 'rhea-500'});
      break;
    case 'big-post': {
      const body = crypto.randomBytes(FIVE_MIB);
      await call(link, {to: '/echo', subject: 'POST', message_id: 'rhea-big-post',
        content_type: 'application/octet-stream', body: rhea.message.data_section(body)},
      {sent_length: body.length, sent_sha256: sha256(body)});
      break;
    }
    case 'big-get':
      await call(link, {to: '/bytes/' + FIVE_MIB, subject: 'GET', message_id: 'rhea-big-get'});
      break;
    case 'map-echo':
      await call(link, {to: '/echo', subject: 'POST', message_id: 'rhea-map-1',
        body: {name: 'orders', durable: true, count: 3, ratio: 0.5, tags: ['a', 'b'], nested: {none: null}}});
      break;
    case 'map-typed':
      await call(link, {to: '/typed/queue/orders', subject: 'PUT', message_id: 'rhea-map-2',
        body: {durable: true, arguments: {'x-queue-type': 'quorum'}}});
      break;
    case 'in-flight': {
      const requests = [];
      for (let i = 0; i < 100; i++) {
        requests.push({to: '/barrier', subject: 'GET', message_id: 'm-' + i, reply_to: link.replyTo,
          application_properties: {'x-request': String(i)}});
      }
      const {responses, settled} = await exchange(link.connection, link.sender, link.receiver, requests);
      for (const response of responses) emit(describe(response, {reply_to: link.replyTo}));
      emit({settled});
      break;
    }
    default:
      die('unknown scenario ' + scenario);
  }
  clearTimeout(timer);
  link.connection.removeAllListeners('disconnected');
  link.connection.close();
  link.connection.once('connection_close', () => process.exit(0));
}

main().catch(die);
