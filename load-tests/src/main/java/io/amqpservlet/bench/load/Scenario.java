package io.amqpservlet.bench.load;

/**
 * The named topologies of the load runs. A "client" is one event loop (a thread with its own selector and
 * connections), as a separate client process would be; an "endpoint" is one {@code amqp://} URL given on the
 * command line (a second gateway, or a second address on the same one).
 */
enum Scenario {
    /** Two clients into one endpoint: one connection each, 16 requests in flight on each. */
    FUNNEL(2, 1, 16, 1),
    /** Two clients, each connected to both of two endpoints: four connections, 16 in flight on each. */
    QUAD(2, 1, 16, 2),
    /** 1,000 connections (two clients of 500), each with a small window of 2. */
    MANY(2, 500, 2, 1),
    /** Through a broker to one gateway in attach mode: two clients of 8 connections, 4 in flight on each. */
    ATTACH1(2, 8, 4, 1),
    /** As {@link #ATTACH1}, with two gateways sharing the broker's queue. */
    ATTACH2(2, 8, 4, 1),
    /** As {@link #ATTACH1}, with three gateways sharing the broker's queue. */
    ATTACH3(2, 8, 4, 1);

    final int clients;
    final int connectionsPerEndpoint;
    final int window;
    /** How many endpoints the topology wants; with fewer given, the first one is used again. */
    final int endpoints;

    Scenario(int clients, int connectionsPerEndpoint, int window, int endpoints) {
        this.clients = clients;
        this.connectionsPerEndpoint = connectionsPerEndpoint;
        this.window = window;
        this.endpoints = endpoints;
    }

    static Scenario byName(String name) throws LoadOptions.UsageException {
        for (Scenario s : values()) {
            if (s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new LoadOptions.UsageException("unknown scenario " + name + " (funnel, quad, many, attach1, attach2, attach3)");
    }

    void applyTo(LoadOptions o) {
        o.scenario = name().toLowerCase(java.util.Locale.ROOT);
        o.clients = clients;
        o.connectionsPerEndpoint = connectionsPerEndpoint;
        o.window = window;
        o.wantedEndpoints = endpoints;
    }
}
