import type { ProducerRecord } from '../../operators/broker/types.ts';
import type { JsonObject } from '../../operators/record/json.ts';
import { Population } from './population.ts';
import type { Random } from './random.ts';

/** One generated input: the record to append and the head id whose output answers it (-1: none). */
export interface BenchEvent {
  readonly record: ProducerRecord;
  readonly head: number;
}

export interface ForeignKey {
  readonly field: string;
  readonly parent: string;
  /** Picks the parent id; default: a uniformly chosen live record of `parent`. */
  readonly choose?: (random: Random, model: StreamModel, chosen: readonly number[]) => number;
}

export interface NodeModel {
  readonly name: string;
  /** Share of creates that go to this node (relative weight: the fan-out). */
  readonly createWeight: number;
  /** The first foreign key leads to the head (used to name the head an event answers to). */
  readonly foreignKeys: readonly ForeignKey[];
  readonly value: (id: number, version: number, foreign: Readonly<Record<string, number>>) => JsonObject;
  /** Told of each created record (lets a chooser of another node find it). */
  readonly created?: (id: number, parents: readonly number[]) => void;
}

export interface OperationMix {
  readonly create: number;
  readonly update: number;
  /** Share of child updates that move the record to another parent. */
  readonly move: number;
}

/**
 * A random change-event stream over a graph of nodes with dense integer ids: creates in
 * fan-out proportions, updates and deletes of uniformly chosen live records, moves of children
 * between parents. Everything derives from the seed, so a run is reproducible.
 */
export class StreamModel {
  readonly populations: ReadonlyMap<string, Population>;
  readonly #byName: ReadonlyMap<string, NodeModel>;
  readonly #totalWeight: number;

  constructor(
    readonly nodes: readonly NodeModel[],
    private readonly mix: OperationMix,
    private readonly random: Random,
  ) {
    this.populations = new Map(nodes.map((n) => [n.name, new Population(n.foreignKeys.length)]));
    this.#byName = new Map(nodes.map((n) => [n.name, n]));
    this.#totalWeight = nodes.reduce((sum, n) => sum + n.createWeight, 0);
  }

  population(name: string): Population {
    const found = this.populations.get(name);
    if (!found) throw new Error(`unknown node ${name}`);
    return found;
  }

  next(): BenchEvent {
    const r = this.random();
    if (r < this.mix.create) return this.#create(this.#weightedNode());
    const [node, id] = this.#pickLive();
    if (id < 0) return this.#create(this.nodes[0] as NodeModel);
    return r < this.mix.create + this.mix.update ? this.#update(node, id) : this.#delete(node, id);
  }

  /** The head (root of the first-foreign-key chain) of a record, or -1 when a link is gone. */
  headOf(node: NodeModel, id: number): number {
    let current = node;
    let currentId = id;
    for (;;) {
      if (!this.population(current.name).isLive(currentId)) return -1;
      const fk = current.foreignKeys[0];
      if (!fk) return currentId;
      currentId = this.population(current.name).foreign(0, currentId);
      current = this.#byName.get(fk.parent) as NodeModel;
    }
  }

  #weightedNode(): NodeModel {
    let r = this.random() * this.#totalWeight;
    for (const n of this.nodes) {
      r -= n.createWeight;
      if (r < 0) return n;
    }
    return this.nodes[this.nodes.length - 1] as NodeModel;
  }

  #pickLive(): [NodeModel, number] {
    const total = [...this.populations.values()].reduce((sum, p) => sum + p.size, 0);
    let r = this.random() * total;
    for (const n of this.nodes) {
      const population = this.population(n.name);
      r -= population.size;
      if (r < 0) return [n, population.pick(this.random)];
    }
    return [this.nodes[0] as NodeModel, -1];
  }

  #chooseParents(node: NodeModel): number[] | null {
    const chosen: number[] = [];
    for (const fk of node.foreignKeys) {
      const parent = fk.choose
        ? fk.choose(this.random, this, chosen)
        : this.population(fk.parent).pick(this.random);
      if (parent < 0) return null;
      chosen.push(parent);
    }
    return chosen;
  }

  #create(node: NodeModel): BenchEvent {
    const parents = this.#chooseParents(node);
    // A child without any parent yet: start with a head record instead.
    if (!parents) return this.#create(this.nodes[0] as NodeModel);
    const id = this.population(node.name).create(parents);
    node.created?.(id, parents);
    return this.#event(node, id, 'c');
  }

  #update(node: NodeModel, id: number): BenchEvent {
    const population = this.population(node.name);
    const moved =
      node.foreignKeys.length > 0 && this.random() < this.mix.move ? this.#chooseParents(node) : null;
    population.update(id, moved ?? undefined);
    return this.#event(node, id, 'u');
  }

  #delete(node: NodeModel, id: number): BenchEvent {
    // The head is named before the record goes: its aggregate changes (or, for a head, it is deleted).
    const head = this.headOf(node, id);
    this.population(node.name).delete(id);
    return { record: encode(node.name, id, null), head };
  }

  #event(node: NodeModel, id: number, op: 'c' | 'u'): BenchEvent {
    const population = this.population(node.name);
    const foreign = Object.fromEntries(
      node.foreignKeys.map((fk, i) => [fk.field, population.foreign(i, id)]),
    );
    const after = node.value(id, population.version(id), foreign);
    return { record: encode(node.name, id, { op, after }), head: this.headOf(node, id) };
  }
}

function encode(
  topic: string,
  id: number,
  change: { op: 'c' | 'u'; after: JsonObject } | null,
): ProducerRecord {
  const value = change
    ? { op: change.op, before: null, after: change.after }
    : { op: 'd', before: null, after: null };
  return {
    topic,
    key: Buffer.from(`{"id":${id}}`),
    value: Buffer.from(JSON.stringify(value)),
  };
}
