import type { Collection, Document } from 'mongodb';
import type { Channel, ServiceConfiguration } from './config.ts';

/** A user as this service sees it, whatever the field names of the users collection. */
export interface User {
  readonly id: string;
  readonly groups: readonly string[];
  readonly clusters: readonly string[];
  readonly roles: readonly string[];
  readonly addresses: Partial<Record<Channel, string>>;
  readonly timeZone?: string;
  /** The whole document of the users collection: what templates see as `user`. */
  readonly record: Document;
}

export interface Audience {
  readonly recipients?: readonly string[];
  readonly clusters?: readonly string[];
  readonly groups?: readonly string[];
  readonly roles?: readonly string[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

export class Users {
  constructor(
    private readonly users: Collection<Document>,
    private readonly fields: ServiceConfiguration['userFields'],
  ) {}

  /** The users named, or in one of the clusters or groups; each once, whatever reached them twice. */
  async find({ recipients = [], clusters = [], groups = [], roles = [] }: Audience): Promise<User[]> {
    const f = this.fields;
    const or: Document[] = [];
    if (recipients.length > 0) or.push({ [f.id]: { $in: [...recipients] } });
    if (clusters.length > 0) or.push({ [f.clusters]: { $in: [...clusters] } });
    if (groups.length > 0) or.push({ [f.groups]: { $in: [...groups] } });
    if (roles.length > 0) or.push({ [f.roles]: { $in: [...roles] } });
    if (or.length === 0) return [];
    const found = await this.users.find({ $or: or }).toArray();
    const byId = new Map<string, User>();
    for (const doc of found) {
      const user = this.toUser(doc);
      if (!byId.has(user.id)) byId.set(user.id, user);
    }
    return [...byId.values()];
  }

  private toUser(doc: Document): User {
    const f = this.fields;
    const phone = text(doc[f.phoneNumber]);
    return {
      id: String(doc[f.id]),
      groups: strings(doc[f.groups]),
      clusters: strings(doc[f.clusters]),
      roles: strings(doc[f.roles]),
      timeZone: text(doc.timeZone),
      record: doc,
      addresses: {
        email: text(doc[f.emailAddress]),
        sms: phone,
        voice: phone,
        whatsapp: phone,
        push: text(doc[f.deviceToken]),
      },
    };
  }
}
