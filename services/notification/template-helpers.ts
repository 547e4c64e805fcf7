import helperGroups from '@budibase/handlebars-helpers';
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import type Handlebars from 'handlebars';

dayjs.extend(utc);
dayjs.extend(timezone);

type HelperOptions = { readonly hash: Record<string, unknown> };

/**
 * The helper groups of handlebars-helpers the reference names ("You can use the functions
 * provided by the handlebars-helpers library", e.g. `eq`), from its maintained fork. Left out:
 * `code` (`embed` reads files of this server) and `path` (`absolute`, `resolve` print its paths):
 * templates are data anyone with the templates CRUD can write.
 */
const HELPER_GROUPS = [
  'array',
  'collection',
  'comparison',
  'html',
  'i18n',
  'inflection',
  'match',
  'math',
  'misc',
  'number',
  'object',
  'regex',
  'string',
  'url',
  'uuid',
] as const;

/** An ISO 8601 date or date-time, as `toLocale` tells a date from another string. */
const ISO_DATE = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/;

/**
 * The reference's custom helpers (overview, "Messages interpolation"):
 * - `dateNow`: "return the current date/time as ISO string";
 * - `dateFormat value format='<Day.js format>' tz='<zone>'`: "format a date/time value in a given
 *   time zone (default: UTC)", format default ISO 8601;
 * - `toLocale value [locale] locale='…'`: "return a string representing a value in a given locale,
 *   if the value is undefined an empty string is returned instead" (default `DEFAULT_LOCALE`):
 *   numbers as numbers, dates (Date or ISO 8601 strings) as dates in UTC unless `timeZone='…'`;
 *   other `Intl` options pass through the hash (`maximumFractionDigits=2`, `dateStyle='long'`).
 */
export function registerHelpers(handlebars: typeof Handlebars, defaultLocale: string): void {
  helperGroups(HELPER_GROUPS as unknown as string[], { handlebars });
  handlebars.registerHelper('dateNow', () => new Date().toISOString());
  handlebars.registerHelper('dateFormat', (value: unknown, options: HelperOptions) => {
    if (value === undefined || value === null || value === '') return '';
    const { format, tz } = options.hash;
    const date = dayjs.utc(value as string | number | Date);
    if (!date.isValid()) return String(value);
    return date
      .tz(typeof tz === 'string' ? tz : 'UTC')
      .format(typeof format === 'string' ? format : undefined);
  });
  handlebars.registerHelper('toLocale', (value: unknown, ...rest: unknown[]) => {
    const { hash } = rest.pop() as HelperOptions;
    const { locale: named, ...intl } = hash;
    const positional = rest.find((arg) => typeof arg === 'string');
    const locale = (typeof named === 'string' ? named : positional) ?? defaultLocale;
    return toLocale(value, locale as string, intl as Intl.NumberFormatOptions & Intl.DateTimeFormatOptions);
  });
}

function toLocale(
  value: unknown,
  locale: string,
  intl: Intl.NumberFormatOptions & Intl.DateTimeFormatOptions,
): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'bigint')
    return new Intl.NumberFormat(locale, intl).format(value);
  const date =
    value instanceof Date
      ? value
      : typeof value === 'string' && ISO_DATE.test(value)
        ? new Date(value)
        : undefined;
  if (date && !Number.isNaN(date.getTime())) return date.toLocaleString(locale, { timeZone: 'UTC', ...intl });
  return String(value);
}
