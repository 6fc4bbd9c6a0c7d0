package io.amqpservlet.bench.soak;

import java.util.List;

/**
 * One sampling interval of the soak: when it ended (seconds since the load began) and how long it was, the gateway
 * process at its end, each kind's figures over it, and the bad peers started in it.
 */
record SoakSample(double seconds, double intervalSeconds, ProcessSample process, List<KindStats.Interval> kinds,
                  long badPeers) {
    double requestsPerSecond() {
        return responses() / Math.max(1e-3, intervalSeconds);
    }

    long responses() {
        long n = 0;
        for (KindStats.Interval k : kinds) {
            n += k.responses();
        }
        return n;
    }

    long errors() {
        long n = 0;
        for (KindStats.Interval k : kinds) {
            n += k.errorCount();
        }
        return n;
    }
}
