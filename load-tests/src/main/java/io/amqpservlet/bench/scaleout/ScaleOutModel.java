package io.amqpservlet.bench.scaleout;

/**
 * The capacity model: N gateways serve X(N) = min(N × q_g / c_g, q_b / c_b) requests per second, where q is a quota
 * in cores and c the CPU seconds one request costs a gateway (c_g) and the broker (c_b). Both costs come from the
 * run with one gateway; the model then predicts the other runs from the quotas alone. It assumes that the cost of
 * a request does not change with the number of gateways (for the broker: one more consumer connection) and that
 * nothing but CPU limits a process.
 *
 * @param gatewayCores          q_g, each gateway's quota
 * @param gatewaySecondsPerRequest c_g
 * @param brokerCores           q_b, the broker's quota
 * @param brokerSecondsPerRequest  c_b
 */
record ScaleOutModel(double gatewayCores, double gatewaySecondsPerRequest, double brokerCores,
                     double brokerSecondsPerRequest) {

    /** The model measured in {@code oneGateway}, the run with a single gateway. */
    static ScaleOutModel of(ScaleOutRun oneGateway) {
        if (oneGateway.gateways() != 1) {
            throw new IllegalArgumentException("the model is taken from the 1-gateway run, not from "
                    + oneGateway.gateways());
        }
        if (oneGateway.responses() <= 0) {
            throw new IllegalArgumentException("the 1-gateway run served no request");
        }
        ProcessCpu gateway = oneGateway.gatewayCpu().get(0);
        ProcessCpu broker = oneGateway.brokerCpu();
        double requests = oneGateway.responses();
        return new ScaleOutModel(gateway.quotaCores(), gateway.cpuSeconds() / requests, broker.quotaCores(),
                broker.cpuSeconds() / requests);
    }

    /** What {@code n} gateways can serve when the broker has CPU to spare: N × q_g / c_g. */
    double gatewaysLimit(int n) {
        return n * gatewayCores / gatewaySecondsPerRequest;
    }

    /** What the broker can pass whatever the gateways: q_b / c_b. */
    double brokerLimit() {
        return brokerCores / brokerSecondsPerRequest;
    }

    /** X(N). */
    double predict(int n) {
        return Math.min(gatewaysLimit(n), brokerLimit());
    }

    /** Whether the broker, not the gateways, limits {@code n} gateways. */
    boolean brokerBound(int n) {
        return brokerLimit() < gatewaysLimit(n);
    }

    /** The least gateway count the broker limits: beyond it more gateways add nothing. */
    int brokerBoundFrom() {
        return (int) Math.ceil(brokerLimit() / gatewaysLimit(1) - 1e-9);
    }
}
