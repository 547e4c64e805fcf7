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

/** Weight of each selector in the precedence: user > cluster > role > group. */
const SELECTORS = [
  ['user', 8],
  ['cluster', 4],
  ['role', 2],
  ['group', 1],
] as const;

/**
 * A setting's precedence among those reaching a user: user > cluster > role > group, and among
 * equals the one with more selectors (a user in a cluster beats the user alone; a group in a
 * cluster beats a group with a role).
 */
function rankOf(setting: NotificationSetting): number {
  return SELECTORS.reduce((rank, [field, weight]) => rank + (setting[field] === undefined ? 0 : weight), 0);
}

/**
 * The settings sorted as the reference's `getNotificationSettings` answers them, highest
 * precedence first: user > cluster > role > group, "recursively sorted based on the precedence of
 * the remaining fields" (a user in a cluster before the user alone); stable among equals.
 */
export function byPrecedence(settings: readonly NotificationSetting[]): NotificationSetting[] {
  return [...settings].sort((a, b) => rankOf(b) - rankOf(a));
}

/** -1 when the setting does not target the user (every selector it sets must match, and it sets one), else its rank. */
export function precedence(setting: NotificationSetting, user: User): number {
  const matches = {
    user: setting.user === user.id,
    cluster: user.clusters.includes(setting.cluster ?? ''),
    role: user.roles.includes(setting.role ?? ''),
    group: user.groups.includes(setting.group ?? ''),
  };
  const rank = rankOf(setting);
  if (rank === 0 || SELECTORS.some(([field]) => setting[field] !== undefined && !matches[field])) return -1;
  return rank;
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

/** The settings of one user (all reaching them) that apply to an event of `emitter`: those without `emitters`, or listing it. */
export function forUser(
  settings: readonly NotificationSetting[],
  user: User,
  emitters: readonly string[],
): NotificationSetting[] {
  return settings.filter(
    (s) => precedence(s, user) >= 0 && (!s.emitters?.length || s.emitters.some((e) => emitters.includes(e))),
  );
}

/**
 * The reference's `mergeNotificationSettings` on the settings reaching one user: per template,
 * only the highest-precedence settings count, and an IGNORE among them drops the template; quiet
 * hours (`hours`, in the user's time zone) drop a setting.
 */
export function mergeSettings(
  settings: readonly NotificationSetting[],
  now: Date,
  timeZone?: string,
): NotificationSetting[] {
  const best = new Map<string, { rank: number; settings: NotificationSetting[] }>();
  for (const setting of settings) {
    const rank = rankOf(setting);
    const current = best.get(setting.templateName);
    if (!current || rank > current.rank) best.set(setting.templateName, { rank, settings: [setting] });
    else if (rank === current.rank) current.settings.push(setting);
  }
  return [...best.values()]
    .filter(({ settings: top }) => !top.some((s) => s.rule === 'IGNORE'))
    .flatMap(({ settings: top }) => top.filter((s) => withinHours(s.hours, now, timeZone)));
}

/** The reference's resolution for one user and event: the settings matching them, merged, grouped by template. */
export function resolveSettings(
  settings: readonly NotificationSetting[],
  user: User,
  emitter: string | undefined,
  now: Date,
): Delivery[] {
  const merged = mergeSettings(forUser(settings, user, emitter ? [emitter] : []), now, user.timeZone);
  const byTemplate = new Map<string, { channels: Set<Channel>; reminders: Set<string> }>();
  for (const s of merged) {
    const delivery = byTemplate.get(s.templateName) ?? { channels: new Set(), reminders: new Set() };
    byTemplate.set(s.templateName, delivery);
    for (const c of s.channels) delivery.channels.add(c);
    for (const r of s.reminders ?? []) delivery.reminders.add(r);
  }
  return [...byTemplate].map(([templateName, { channels, reminders }]) => ({
    templateName,
    channels: [...channels],
    reminders: [...reminders],
  }));
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
