package dev.streamfold.peer;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The peer's topologies (README.md beside the POM says why they are built this way). Every store
 * is whatever `dsl.store.suppliers.class` names (in-memory or RocksDB): no operator picks its own.
 */
final class Topologies {
    private static final Serde<String> KEYS = Serdes.String();
    private static final Serde<JsonNode> JSON = Json.SERDE;

    private Topologies() {}

    /**
     * W1, customers → orders → items: each table grouped by its foreign key and aggregated under
     * its parent's key, then joined to the parent table on that key, level by level up to the head.
     */
    static Topology w1(Peer.Options options) {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, JsonNode> customers = table(builder, options.customers(), "customers");
        KTable<String, JsonNode> orders = table(builder, options.orders(), "orders");
        KTable<String, JsonNode> items = table(builder, options.items(), "items");

        // order key → {item key: item aggregate}; a moved item leaves one order for another.
        KTable<String, JsonNode> itemsByOrder = children(items, item -> item, "orderId", "items-by-order",
            item -> Json.aggregate(item, null, null));
        // order key → order aggregate; an order without items has `"items": []`.
        KTable<String, JsonNode> orderAggregates = orders.leftJoin(itemsByOrder,
            (order, children) -> Json.aggregate(order, "items", children), Named.as("order-aggregates"));
        // customer key → {order key: order aggregate}.
        KTable<String, JsonNode> ordersByCustomer = children(orderAggregates, aggregate -> aggregate.get("value"),
            "customerId", "orders-by-customer", aggregate -> aggregate);
        KTable<String, JsonNode> heads = customers.leftJoin(ordersByCustomer,
            (customer, children) -> Json.aggregate(customer, "orders", children), Named.as("customer-aggregates"));
        output(heads, options.output());
        return builder.build();
    }

    /** W4, customers only: each customer's aggregate with no dependencies. */
    static Topology w4(Peer.Options options) {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, JsonNode> customers = table(builder, options.customers(), "customers");
        output(customers.<JsonNode>mapValues(customer -> Json.aggregate(customer, null, null), Named.as("customer-aggregates")),
            options.output());
        return builder.build();
    }

    /**
     * The table of a change-event topic: c, r, u upsert `after`, d deletes the key; a tombstone or
     * a message that is no change event is skipped (design/engine.md §2).
     */
    private static KTable<String, JsonNode> table(StreamsBuilder builder, String topic, String name) {
        return builder.stream(topic, Consumed.with(KEYS, JSON).withName(name + "-source"))
            .filter((key, event) -> key != null && Json.isChange(event), Named.as(name + "-changes"))
            .mapValues(Json::rowOf, Named.as(name + "-rows"))
            .toTable(Named.as(name + "-table"), Materialized.<String, JsonNode, KeyValueStore<Bytes, byte[]>>as(name)
                .withKeySerde(KEYS).withValueSerde(JSON));
    }

    /**
     * The children of each parent: `child` re-keyed by the parent key that the `field` of its row
     * names, aggregated into {child key: child aggregate}. The subtractor takes a child out of its
     * old parent when it changes, moves or goes; the adder puts it into its (new) parent.
     */
    private static KTable<String, JsonNode> children(KTable<String, JsonNode> child,
            UnaryOperator<JsonNode> row, String field, String name, UnaryOperator<JsonNode> aggregate) {
        return child
            .groupBy((key, value) -> KeyValue.pair(Json.parentKey(row.apply(value), field),
                    Json.entry(key, aggregate.apply(value))),
                Grouped.with(name, KEYS, JSON))
            .aggregate(Json.NODES::objectNode,
                (parent, entry, children) -> Json.withChild(entry, children),
                (parent, entry, children) -> Json.withoutChild(entry, children),
                Named.as(name + "-aggregate"),
                Materialized.<String, JsonNode, KeyValueStore<Bytes, byte[]>>as(name)
                    .withKeySerde(KEYS).withValueSerde(JSON));
    }

    /** Each head's aggregate as a read-delete message; a deleted head (null) as a tombstone. */
    private static void output(KTable<String, JsonNode> heads, String topic) {
        heads.toStream(Named.as("heads"))
            .<JsonNode>mapValues(aggregate -> aggregate == null ? null : Json.readMessage(aggregate), Named.as("messages"))
            .to(topic, Produced.with(KEYS, JSON).withName("output"));
    }
}
