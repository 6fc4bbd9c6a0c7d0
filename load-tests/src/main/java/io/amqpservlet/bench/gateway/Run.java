package io.amqpservlet.bench.gateway;

/**
 * One measured run of the suite: which protocol, at which load (0 = saturation, else the target rate in
 * requests/s), what the client measured and what the server spent.
 *
 * @param server null when the server's counters were not available (the broker has no {@code --stats})
 */
record Run(String protocol, String load, double targetRate, ClientFigures client, ServerSample.ServerFigures server) {
}
