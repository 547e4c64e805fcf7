package dev.streamfold.peer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The JSON side of the peer: a Jackson serde for every value (change events, table rows,
 * aggregates, output messages) and the shapes of the engine's contract (design/engine.md §2, §4,
 * §5). Values are Jackson trees, never mutated once built: an aggregator copies before it changes.
 */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Set<String> OPS = Set.of("c", "r", "u", "d");

    /** JSON bytes to and from a tree; null is null both ways (a tombstone in, a tombstone out). */
    static final Serde<JsonNode> SERDE = Serdes.serdeFrom(
        (Serializer<JsonNode>) (topic, node) -> {
            if (node == null) return null;
            try {
                return MAPPER.writeValueAsBytes(node);
            } catch (JsonProcessingException e) {
                throw new SerializationException(e);
            }
        },
        (Deserializer<JsonNode>) (topic, bytes) -> {
            if (bytes == null) return null;
            try {
                return MAPPER.readTree(bytes);
            } catch (IOException e) {
                // The deserialization handler (log and continue) skips the record, as the engine
                // skips a message that is not JSON.
                throw new SerializationException(e);
            }
        });

    private Json() {}

    /** A change event `{op, before, after}` with a known op (a tombstone or anything else is not one). */
    static boolean isChange(JsonNode event) {
        return event != null && event.isObject() && OPS.contains(event.path("op").asText(""));
    }

    /** The row a change event leaves: `after` for c, r, u; null (delete) for d. */
    static JsonNode rowOf(JsonNode event) {
        return "d".equals(event.get("op").asText()) ? null : event.get("after");
    }

    /**
     * The key of the parent record a child links to through `field` (`orders.customerId =
     * customers.id`): `{"id":<the field's value>}`, as the parents' own change events are keyed.
     */
    static String parentKey(JsonNode child, String field) {
        ObjectNode key = NODES.objectNode();
        key.set("id", child.path(field).isMissingNode() ? NODES.nullNode() : child.get(field));
        return write(key);
    }

    /** The aggregate of a record (§4): `{"value": row, "dependencies": {name: [children], ...}}`. */
    static ObjectNode aggregate(JsonNode row, String childNode, JsonNode children) {
        ObjectNode dependencies = NODES.objectNode();
        if (childNode != null) {
            ArrayNode list = dependencies.putArray(childNode);
            if (children != null) children.forEach(list::add);
        }
        ObjectNode node = NODES.objectNode();
        node.set("value", row);
        node.set("dependencies", dependencies);
        return node;
    }

    /** The engine's read-delete output message (§5) for an aggregate. */
    static ObjectNode readMessage(JsonNode aggregate) {
        ObjectNode message = NODES.objectNode();
        message.put("op", "r");
        message.putNull("before");
        message.set("after", aggregate);
        return message;
    }

    /** A child's entry on its way to its parent's aggregate: its key and its own aggregate. */
    static ObjectNode entry(String childKey, JsonNode childAggregate) {
        ObjectNode node = NODES.objectNode();
        node.put("key", childKey);
        node.set("aggregate", childAggregate);
        return node;
    }

    /** A parent's children, child key → child aggregate: a copy with `entry` added or replaced. */
    static ObjectNode withChild(JsonNode entry, JsonNode children) {
        ObjectNode next = NODES.objectNode();
        next.setAll((ObjectNode) children);
        next.set(entry.get("key").asText(), entry.get("aggregate"));
        return next;
    }

    /** A copy of `children` without `entry`'s key. */
    static ObjectNode withoutChild(JsonNode entry, JsonNode children) {
        ObjectNode next = NODES.objectNode();
        next.setAll((ObjectNode) children);
        next.remove(entry.get("key").asText());
        return next;
    }

    private static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
