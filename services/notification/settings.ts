import type { Document } from 'mongodb';
import type { Channel } from './config.ts';
import type { User } from './users.ts';

/** A notification setting as stored (the reference's notification settings CRUD). */
export interface NotificationSetting extends Document {
  readonly eventName: string;
  readonly templateName: string;
  readonly channels: readonly Channel[];
  readonly user?: string;
  readonly group?: string;
  readonly cluster?: string;
  readonly role?: string;
  readonly rule?: 'SEND' | 'IGNORE';
  readonly emitters?: readonly string[];
  readonly hours?: readonly string[];
  readonly reminders?: readonly string[];
}

/** What one user gets for one event: a template on some channels. */
export interface Delivery {
  readonly templateName: string;
  readonly channels: Channel[];
  /** ISO 8601 durations before the event date, merged from the deciding settings. */
  readonly reminders: string[];
}

/**
 * -1 when the setting does not target the user (every selector it sets must match), else its
 * precedence: user > cluster > role > group, and among equals the one with more selectors (a
 * user in a cluster beats the user alone; a group in a cluster beats a group with a role).
 */
export function precedence(setting: NotificationSetting, user: User): number {
  const selectors: [string | undefined, boolean, number][] = [
    [setting.user, setting.user === user.id, 8],
    [setting.cluster, user.clusters.includes(setting.cluster ?? ''), 4],
    [setting.role, user.roles.includes(setting.role ?? ''), 2],
    [setting.group, user.groups.includes(setting.group ?? ''), 1],
  ];
  let rank = 0;
  for (const [value, matches, weight] of selectors) {
    if (value === undefined) continue;
    if (!matches) return -1;
    rank += weight;
  }
  return rank === 0 ? -1 : rank;
}

/** `09:00-18:00` holds `now` in the user's time zone (a window may cross midnight). */
function withinHours(hours: readonly string[] | undefined, now: Date, timeZone: string | undefined): boolean {
  if (!hours || hours.length === 0) return true;
  const clock = now.toLocaleTimeString('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return hours.some((window) => {
    const [from, to] = window.split('-');
    if (!from || !to) return false;
    return from <= to ? clock >= from && clock < to : clock >= from || clock < to;
  });
}

/**
 * The reference's resolution for one user: the settings that match the user and the emitter,
 * grouped by template; in each group only the highest-precedence settings count, and an IGNORE
 * among them drops the template; quiet hours (`hours`, in the user's time zone) drop a setting.
 */
export function resolveSettings(
  settings: readonly NotificationSetting[],
  user: User,
  emitter: string | undefined,
  now: Date,
): Delivery[] {
  const best = new Map<string, { rank: number; settings: NotificationSetting[] }>();
  for (const setting of settings) {
    const rank = precedence(setting, user);
    if (rank < 0) continue;
    if (setting.emitters?.length && (emitter === undefined || !setting.emitters.includes(emitter))) continue;
    const current = best.get(setting.templateName);
    if (!current || rank > current.rank) best.set(setting.templateName, { rank, settings: [setting] });
    else if (rank === current.rank) current.settings.push(setting);
  }
  const deliveries: Delivery[] = [];
  for (const [templateName, { settings: top }] of best) {
    if (top.some((s) => s.rule === 'IGNORE')) continue;
    const channels = new Set<Channel>();
    for (const s of top)
      if (withinHours(s.hours, now, user.timeZone)) for (const c of s.channels) channels.add(c);
    const reminders = [...new Set(top.flatMap((s) => s.reminders ?? []))];
    if (channels.size > 0) deliveries.push({ templateName, channels: [...channels], reminders });
  }
  return deliveries;
}

/** Who a setting targets, for finding the candidate users. */
export function audienceOf(settings: readonly NotificationSetting[]) {
  const pick = (field: 'user' | 'group' | 'cluster' | 'role') =>
    settings.map((s) => s[field]).filter((v): v is string => typeof v === 'string');
  return { recipients: pick('user'), groups: pick('group'), clusters: pick('cluster'), roles: pick('role') };
}

/** Whether the setting reaches the user (every selector it sets matches). */
export function targets(setting: NotificationSetting, user: User): boolean {
  return precedence(setting, user) >= 0;
}
