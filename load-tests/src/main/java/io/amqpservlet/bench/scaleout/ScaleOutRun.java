package io.amqpservlet.bench.scaleout;

import java.util.List;
import java.util.Map;

/**
 * One measured configuration: {@code gateways} gateways on the broker's queue, the generator at saturation.
 *
 * @param broker           the broker
 * @param gateways         gateways attached to the queue
 * @param seconds          the measured phase
 * @param responses        responses the generator received in it
 * @param p50Micros        median latency
 * @param p99Micros        99th percentile latency
 * @param errors           errors by kind (timeouts, refusals) in the measured phase
 * @param brokerCpu        the broker's process
 * @param gatewayCpu       each gateway's process
 * @param generatorCpu     the generator (this JVM, no quota)
 * @param servedByGateway  requests each gateway served in the phase, by its own count
 * @param machineBusyCores every process on the machine, ours and others', in cores (from /proc/stat)
 */
record ScaleOutRun(BrokerKind broker, int gateways, double seconds, long responses, double p50Micros,
                   double p99Micros, Map<String, Long> errors, ProcessCpu brokerCpu, List<ProcessCpu> gatewayCpu,
                   ProcessCpu generatorCpu, List<Long> servedByGateway, double machineBusyCores) {

    double requestsPerSecond() {
        return responses / seconds;
    }

    long errorCount() {
        long n = 0;
        for (long v : errors.values()) {
            n += v;
        }
        return n;
    }

    /** The gateways' CPU time per request, all gateways together. */
    double gatewayMicrosPerRequest() {
        double cpu = 0;
        for (ProcessCpu g : gatewayCpu) {
            cpu += g.cpuSeconds();
        }
        return responses > 0 ? cpu * 1e6 / responses : Double.NaN;
    }

    double brokerMicrosPerRequest() {
        return brokerCpu.microsPerRequest(responses);
    }

    /** The least share of its quota any gateway used. */
    double leastGatewayQuotaShare() {
        double least = Double.POSITIVE_INFINITY;
        for (ProcessCpu g : gatewayCpu) {
            least = Math.min(least, g.quotaShare());
        }
        return least;
    }
}
