import type { PartitionLog, TopicLog } from './log.ts';

/** What a group needs from its members. */
export interface GroupMember {
  readonly memberId: number;
  readonly topics: ReadonlySet<string>;
  owned(): Iterable<PartitionLog>;
  /** Calls the revoke listeners and gives the partitions up once they are done. */
  revoke(partitions: PartitionLog[]): Promise<void>;
  /** Takes the partitions, reading from the group's committed offsets, and calls the assign listeners. */
  assign(partitions: PartitionLog[]): Promise<void>;
}

/**
 * A consumer group: range assignment across its members, recomputed on every join and leave
 * (and when a subscribed topic appears). Rebalances run one at a time; partitions moving between
 * members are revoked (and committed by their old owner) before the new owner gets them.
 */
export class ConsumerGroup {
  readonly #members: GroupMember[] = [];
  /** Every topic a member ever subscribed: what "caught up" is measured over. */
  readonly topics = new Set<string>();
  #rebalancing: Promise<void> = Promise.resolve();
  #caughtUpWaiters: Array<() => void> = [];

  constructor(
    readonly groupId: string,
    private readonly topicLogs: ReadonlyMap<string, TopicLog>,
    /** Told after every commit of the group (the broker's lag waiters). */
    private readonly onCommitted: () => void = () => {},
  ) {}

  join(member: GroupMember): Promise<void> {
    if (!this.#members.includes(member)) this.#members.push(member);
    for (const topic of member.topics) {
      this.topics.add(topic);
      // A topic created later gets its subscribers from the broker.
      this.topicLogs.get(topic)?.subscribers.add(this.groupId);
    }
    this.committed();
    return this.rebalance([]);
  }

  leave(member: GroupMember): Promise<void> {
    const index = this.#members.indexOf(member);
    if (index >= 0) this.#members.splice(index, 1);
    return this.rebalance([member]);
  }

  rebalance(departed: readonly GroupMember[]): Promise<void> {
    this.#rebalancing = this.#rebalancing.then(() => this.#rebalanceNow(departed));
    return this.#rebalancing;
  }

  lag(): number {
    let lag = 0;
    for (const topic of this.topics) {
      for (const log of this.topicLogs.get(topic)?.partitions ?? []) lag += log.lag(this.groupId);
    }
    return lag;
  }

  /** Resolves once the group has subscribed and committed everything written to its topics. */
  caughtUp(): Promise<void> {
    if (this.#isCaughtUp()) return Promise.resolve();
    return new Promise((resolve) => this.#caughtUpWaiters.push(resolve));
  }

  /** Called after each commit and join: commits are the only way lag goes down. */
  committed(): void {
    this.onCommitted();
    if (this.#caughtUpWaiters.length === 0 || !this.#isCaughtUp()) return;
    for (const resolve of this.#caughtUpWaiters.splice(0)) resolve();
  }

  #isCaughtUp(): boolean {
    return this.topics.size > 0 && this.lag() === 0;
  }

  async #rebalanceNow(departed: readonly GroupMember[]): Promise<void> {
    const target = this.#rangeAssignment();
    const current = [...this.#members, ...departed];
    await Promise.all(
      current.map((member) => {
        const keep = target.get(member);
        const revoked = [...member.owned()].filter((log) => !keep?.has(log));
        return revoked.length > 0 ? member.revoke(revoked) : undefined;
      }),
    );
    await Promise.all(
      this.#members.map((member) => {
        const owned = new Set(member.owned());
        const added = [...(target.get(member) ?? [])].filter((log) => !owned.has(log));
        return added.length > 0 ? member.assign(added) : undefined;
      }),
    );
  }

  #rangeAssignment(): Map<GroupMember, Set<PartitionLog>> {
    const target = new Map<GroupMember, Set<PartitionLog>>(this.#members.map((m) => [m, new Set()]));
    const topics = new Set(this.#members.flatMap((m) => [...m.topics]));
    for (const topic of topics) {
      const partitions = this.topicLogs.get(topic)?.partitions ?? [];
      const members = this.#members
        .filter((m) => m.topics.has(topic))
        .sort((a, b) => a.memberId - b.memberId);
      const share = Math.floor(partitions.length / members.length);
      const extra = partitions.length % members.length;
      let next = 0;
      members.forEach((member, i) => {
        const count = share + (i < extra ? 1 : 0);
        for (const log of partitions.slice(next, next + count)) target.get(member)!.add(log);
        next += count;
      });
    }
    return target;
  }
}
