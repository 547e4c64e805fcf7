package dev.streamfold.peer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;

/**
 * The Kafka Streams peer of the Kafka-mode benchmark (README.md beside the POM).
 *
 * <pre>
 * java -cp … dev.streamfold.peer.Peer --bootstrap 127.0.0.1:9092 --workload W1 --store memory \
 *   --customers c --orders o --items i --output out --application-id app --state-dir /tmp/x
 * </pre>
 *
 * It starts paused (KIP-834): it joins its group and creates its internal topics, prints
 * {@code READY} once its stream threads have their partitions assigned, and starts processing
 * when a line {@code start} arrives on stdin (prints {@code RESUMED}, then {@code RUNNING} when
 * the instance reaches that state: a paused instance's tasks wait unrestored, so it stays
 * REBALANCING until then). It stops when stdin ends (so it never outlives the process that
 * started it), on SIGTERM, or when Kafka Streams fails ({@code FAILED …}, exit code 1).
 * {@code --describe} prints the topology and exits.
 */
public final class Peer {
    /** The engine's commit interval (its consumers' `commitIntervalMs` default). */
    static final long COMMIT_INTERVAL_MS = 500;

    record Options(String bootstrap, String workload, String store, String customers, String orders,
            String items, String output, String applicationId, String stateDir, boolean describe) {
        static Options parse(String[] args) {
            Map<String, String> named = new HashMap<>();
            boolean describe = false;
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--describe")) describe = true;
                else if (args[i].startsWith("--") && i + 1 < args.length) named.put(args[i].substring(2), args[++i]);
                else throw new IllegalArgumentException("unexpected argument " + args[i]);
            }
            String workload = named.getOrDefault("workload", "W1");
            if (!workload.equals("W1") && !workload.equals("W4"))
                throw new IllegalArgumentException("--workload is W1 or W4, not " + workload);
            String store = named.getOrDefault("store", "memory");
            if (!store.equals("memory") && !store.equals("rocksdb"))
                throw new IllegalArgumentException("--store is memory or rocksdb, not " + store);
            return new Options(
                named.getOrDefault("bootstrap", "127.0.0.1:9092"), workload, store,
                named.getOrDefault("customers", "customers"), named.getOrDefault("orders", "orders"),
                named.getOrDefault("items", "items"), named.getOrDefault("output", "output"),
                named.getOrDefault("application-id", "streamfold-peer"),
                named.getOrDefault("state-dir", System.getProperty("java.io.tmpdir") + "/streamfold-peer"),
                describe);
        }
    }

    static Properties properties(Options options) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, options.applicationId());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
        p.put(StreamsConfig.STATE_DIR_CONFIG, options.stateDir());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        // The default, 30 s with at_least_once, would hold back output (and the caches) that long.
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        // Every store the DSL builds, the FK-join and aggregation stores included (KIP-954).
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, options.store().equals("memory")
            ? BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class
            : BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class);
        // A message that is not JSON is logged and skipped, as the engine skips it.
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        return p;
    }

    public static void main(String[] args) throws InterruptedException {
        Options options = Options.parse(args);
        Topology topology = options.workload().equals("W1") ? Topologies.w1(options) : Topologies.w4(options);
        if (options.describe()) {
            System.out.println(topology.describe());
            return;
        }
        KafkaStreams streams = new KafkaStreams(topology, properties(options));
        CountDownLatch done = new CountDownLatch(1);
        AtomicBoolean failed = new AtomicBoolean(false);
        AtomicLong resumed = new AtomicLong();
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING)
                say("RUNNING" + (resumed.get() > 0 ? " " + (System.currentTimeMillis() - resumed.get()) + " ms after start" : ""));
            if (now == KafkaStreams.State.ERROR) {
                failed.set(true);
                done.countDown();
            }
        });
        streams.setUncaughtExceptionHandler(error -> {
            say("FAILED " + error);
            failed.set(true);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(10))));

        streams.pause();
        streams.start();
        // Paused, the tasks wait unrestored, so the instance stays REBALANCING until resumed: ready
        // is the group joined (internal topics created first), every stream thread assigned.
        Thread ready = new Thread(() -> {
            try {
                while (!assigned(streams)) {
                    if (done.getCount() == 0) return;
                    Thread.sleep(20);
                }
                say("READY");
            } catch (InterruptedException e) {
                // Stopping.
            }
        }, "ready");
        ready.setDaemon(true);
        ready.start();
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.trim().equals("start")) {
                        resumed.set(System.currentTimeMillis());
                        streams.resume();
                        say("RESUMED");
                    }
                }
            } catch (IOException e) {
                // Like the end of the input: the parent is gone.
            }
            done.countDown();
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();

        done.await();
        streams.close(Duration.ofSeconds(10));
        System.exit(failed.get() ? 1 : 0);
    }

    /** Every stream thread's consumer has partitions assigned (its coordinator's metric). */
    private static boolean assigned(KafkaStreams streams) {
        boolean any = false;
        for (var metric : streams.metrics().entrySet()) {
            MetricName name = metric.getKey();
            if (name.group().equals("consumer-coordinator-metrics") && name.name().equals("assigned-partitions")) {
                if (((Number) metric.getValue().metricValue()).doubleValue() <= 0) return false;
                any = true;
            }
        }
        return any;
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
