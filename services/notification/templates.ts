import Handlebars from 'handlebars';
import type { Document } from 'mongodb';
import type { Message } from './channels.ts';
import type { Channel } from './config.ts';

/** A template document's channel fields, or a `/send` body's title and content. */
export type Template = Document;

/**
 * Handlebars with the reference's locale helper: `{{toLocale date "it-IT" timeZone="Europe/Rome"}}`
 * formats a date (string or number) for a locale, `DEFAULT_LOCALE` when none is given.
 */
export function createRenderer(defaultLocale: string) {
  const handlebars = Handlebars.create();
  handlebars.registerHelper('toLocale', (value: unknown, ...rest: unknown[]) => {
    const options = rest.pop() as { hash: Intl.DateTimeFormatOptions };
    const locale = typeof rest[0] === 'string' ? rest[0] : defaultLocale;
    const date = new Date(value as string | number);
    if (Number.isNaN(date.getTime())) return String(value ?? '');
    return date.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short', ...options.hash });
  });
  const cache = new Map<string, Handlebars.TemplateDelegate>();
  const render = (text: unknown, data: unknown): string | undefined => {
    if (typeof text !== 'string') return undefined;
    let compiled = cache.get(text);
    if (!compiled) {
      compiled = handlebars.compile(text, { noEscape: false, strict: false });
      cache.set(text, compiled);
    }
    return compiled(data);
  };

  /** The message of `template` on `channel`; undefined when the template has nothing for it. */
  return function renderMessage(template: Template, channel: Channel, data: unknown): Message | undefined {
    switch (channel) {
      case 'email': {
        const html = render(template.emailHtmlMessage, data);
        const content = render(template.emailMessage, data) ?? html;
        return content === undefined
          ? undefined
          : { title: render(template.emailTitle, data), content, html };
      }
      case 'sms':
      case 'voice':
      case 'whatsapp': {
        const field = { sms: 'smsMessage', voice: 'voiceMessage', whatsapp: 'whatsappTemplateParameters' }[
          channel
        ];
        const content = render(template[field], data);
        return content === undefined ? undefined : { content };
      }
      case 'push': {
        const content = render(template.pushMessage, data);
        const pushData = render(template.pushData, data);
        if (content === undefined && pushData === undefined) return undefined;
        return {
          title: render(template.pushTitle, data),
          content: content ?? '',
          pushData: pushData === undefined ? undefined : JSON.parse(pushData),
        };
      }
    }
  };
}

export type RenderMessage = ReturnType<typeof createRenderer>;

/** A `/send` body's title and content as a template for every channel. */
export function inlineTemplate(title: string, content: string): Template {
  return {
    emailTitle: title,
    emailMessage: content,
    smsMessage: content,
    voiceMessage: content,
    whatsappTemplateParameters: content,
    pushTitle: title,
    pushMessage: content,
  };
}
