import Handlebars from 'handlebars';
import type { Document } from 'mongodb';
import type { AttachmentRef } from './attachments.ts';
import type { Message } from './channels.ts';
import type { Channel } from './config.ts';
import { registerHelpers } from './template-helpers.ts';

/** A template document's channel fields, or a `/send` body's title and content. */
export type Template = Document;

/**
 * What every interpolated text sees, as the reference says ("The input objects that can be used
 * in the Notification Manager are: the user object (i.e., the data of the user to which you are
 * sending the message), the data object of the body of the send request"; for events "`data`:
 * this variable holds the event payload; `user`: this variable holds the user properties").
 */
export interface TemplateContext {
  readonly data: unknown;
  /** The recipient's whole record from the users collection. */
  readonly user: unknown;
}

/** The template fields that give a channel a message (the reference's templates CRUD). */
const CHANNEL_FIELDS: Record<Channel, readonly string[]> = {
  email: ['emailHtmlMessage', 'emailMessage'],
  sms: ['smsMessage'],
  voice: ['voiceMessage'],
  push: ['pushTitle', 'pushSubtitle', 'pushMessage', 'pushData'],
  // "Messages via whatsapp can only be sent via template": the template name makes the message.
  whatsapp: ['whatsappTemplateName'],
};

/** Whether the template has a message for the channel (a notification setting needs one per channel). */
export function hasMessageFor(template: Template, channel: Channel): boolean {
  return CHANNEL_FIELDS[channel].some((field) => typeof template[field] === 'string');
}

/** Every string of `value` JSON-escaped, so that `{{data.x}}` inside a JSON string stays valid JSON. */
function jsonEscaped(value: unknown): unknown {
  if (typeof value === 'string') return JSON.stringify(value).slice(1, -1);
  if (Array.isArray(value)) return value.map(jsonEscaped);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonEscaped(v)]));
  return value;
}

/**
 * Handlebars with the reference's helpers (`template-helpers.ts`); `{{ }}` escapes HTML, `{{{ }}}`
 * does not, as the reference says. `pushData` is JSON: there the values are inserted JSON-escaped
 * instead (quotes and newlines of the data keep the payload valid JSON and arrive as they were).
 */
export function createRenderer(defaultLocale: string) {
  const handlebars = Handlebars.create();
  registerHelpers(handlebars, defaultLocale);
  const caches = { html: new Map<string, Handlebars.TemplateDelegate>(), json: new Map() };
  const compile = (text: string, mode: keyof typeof caches) => {
    let compiled = caches[mode].get(text);
    if (!compiled) {
      compiled = handlebars.compile(text, { noEscape: mode === 'json', strict: false });
      caches[mode].set(text, compiled);
    }
    return compiled;
  };
  const render = (text: unknown, context: TemplateContext): string | undefined =>
    typeof text === 'string' ? compile(text, 'html')(context) : undefined;
  const renderJson = (text: unknown, context: TemplateContext): unknown =>
    typeof text === 'string' ? JSON.parse(compile(text, 'json')(jsonEscaped(context))) : undefined;

  /** The message of `template` on `channel`; undefined when the template has nothing for it. */
  return function renderMessage(
    template: Template,
    channel: Channel,
    context: TemplateContext,
  ): Message | undefined {
    // WhatsApp is always a message: without a template name its delivery fails, as the reference's does.
    if (channel !== 'whatsapp' && !hasMessageFor(template, channel)) return undefined;
    switch (channel) {
      case 'email': {
        const html = render(template.emailHtmlMessage, context);
        return {
          title: render(template.emailTitle, context),
          content: render(template.emailMessage, context) ?? html ?? '',
          html,
          attachments: template.emailAttachments as AttachmentRef[] | undefined,
        };
      }
      case 'sms':
        return { content: render(template.smsMessage, context) ?? '' };
      case 'voice':
        return { content: render(template.voiceMessage, context) ?? '' };
      case 'whatsapp':
        return {
          content: render(template.whatsappTemplateParameters, context) ?? '',
          whatsappTemplateName: template.whatsappTemplateName as string | undefined,
        };
      case 'push':
        return {
          title: render(template.pushTitle, context),
          subtitle: render(template.pushSubtitle, context),
          content: render(template.pushMessage, context) ?? '',
          pushData: renderJson(template.pushData, context),
        };
    }
  };
}

export type RenderMessage = ReturnType<typeof createRenderer>;

/**
 * A `/send` body's title and content as a template: "It will be used as content for e-mails,
 * sms, push and voice notifications" — not WhatsApp, which needs a template.
 */
export function inlineTemplate(title: string, content: string): Template {
  return {
    emailTitle: title,
    emailMessage: content,
    smsMessage: content,
    voiceMessage: content,
    pushTitle: title,
    pushMessage: content,
  };
}
