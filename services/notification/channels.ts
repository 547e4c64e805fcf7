import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { type AttachmentRef, downloadAttachments } from './attachments.ts';
import type { Channel, NotificationConfig } from './config.ts';
import { postJson, withSlash } from './http.ts';
import { PermanentError, withRetries } from './retry.ts';

/** One rendered message for one recipient on one channel. */
export interface Message {
  readonly title?: string;
  readonly content: string;
  readonly html?: string;
  /** email */
  readonly sender?: string;
  readonly carbonCopies?: readonly string[];
  readonly blindCarbonCopies?: readonly string[];
  readonly attachments?: readonly AttachmentRef[];
  /** push */
  readonly subtitle?: string;
  readonly pushData?: unknown;
  /** whatsapp: the template the messaging service sends, `content` being its comma-separated parameters. */
  readonly whatsappTemplateName?: string;
}

/** The recipient's address on a channel: email address, phone number or device token. */
export type Address = string;

/** Delivers one message; resolves with what was sent (stored as the message's `service`), throws when it failed. */
export type Deliver = (
  channel: Channel,
  address: Address,
  message: Message,
) => Promise<Record<string, unknown>>;

export interface Delivery {
  readonly deliver: Deliver;
  close(): void;
}

/** SMTP connections kept open at most (nodemailer's pool). */
const SMTP_CONNECTIONS = 5;

/**
 * The channel services of the configuration: email through nodemailer (`SMTP_URL`) or the mail
 * service's `POST /send`, the other channels through their services' `POST /send`, each retried
 * with backoff on transient failures.
 */
export function createDelivery(config: NotificationConfig): Delivery {
  const { sender, androidIntentAction } = config.service;
  const timeoutMs = config.CHANNEL_TIMEOUT_MS;
  const smtp = config.SMTP_URL
    ? nodemailer.createTransport({
        url: config.SMTP_URL,
        connectionTimeout: timeoutMs,
        socketTimeout: timeoutMs,
        // Connections reused across emails: a new SMTP handshake per email costs more than the email.
        pool: true,
        maxConnections: SMTP_CONNECTIONS,
      } as SMTPTransport.Options)
    : undefined;
  const send = (url: string | undefined, channel: Channel, body: Record<string, unknown>) => {
    if (!url) throw new PermanentError(`the channel "${channel}" has no service URL`);
    return postJson(new URL('send', withSlash(url)).href, body, timeoutMs).then(() => body);
  };

  const once: Deliver = async (channel, address, message) => {
    switch (channel) {
      case 'email': {
        const attachments = await downloadAttachments(
          config.FILE_SERVICE_URL,
          message.attachments ?? [],
          timeoutMs,
        );
        const mail = {
          from: message.sender ?? sender.email,
          to: address,
          cc: message.carbonCopies ? [...message.carbonCopies] : undefined,
          bcc: message.blindCarbonCopies ? [...message.blindCarbonCopies] : undefined,
          subject: message.title ?? '',
          ...(message.html ? { html: message.html } : { text: message.content }),
          attachments,
        };
        if (!smtp) {
          const { from, to, subject, cc, bcc } = mail;
          return send(config.MAIL_SERVICE_URL, channel, {
            sender: from,
            recipient: [to],
            cc,
            bcc,
            subject,
            ...(message.html ? { htmlMessage: message.html } : { textMessage: message.content }),
            attachments: attachments.map((a) => ({
              name: a.filename,
              content: a.content.toString('base64'),
            })),
          });
        }
        try {
          await smtp.sendMail(mail);
        } catch (error) {
          const code = (error as { responseCode?: number }).responseCode;
          // 5xx SMTP replies (unknown mailbox, rejected sender) do not change on a retry.
          throw code !== undefined && code >= 500 ? new PermanentError((error as Error).message) : error;
        }
        return {
          message: { sender: mail.from, recipient: address, subject: mail.subject },
          attachments: message.attachments,
        };
      }
      case 'sms':
        return send(config.SMS_SERVICE_URL, channel, {
          sender: sender.sms,
          receiver: address,
          body: message.content,
        });
      case 'voice':
        return send(config.VOICE_SERVICE_URL, channel, {
          sender: sender.voice,
          receiver: address,
          body: message.content,
        });
      case 'whatsapp':
        // The reference's error and stored message (`sender`, `receiver`, `templateName`, `params`).
        if (!message.whatsappTemplateName)
          throw new PermanentError('Missing required template name for WhatsApp message');
        return send(config.MESSAGING_SERVICE_URL, channel, {
          sender: sender.whatsappPhoneNumberId,
          receiver: address,
          templateName: message.whatsappTemplateName,
          params: message.content,
        });
      case 'push':
        return send(config.PUSH_SERVICE_URL, channel, {
          deviceToken: address,
          title: message.title,
          subtitle: message.subtitle,
          body: message.content,
          data: message.pushData,
          androidIntentAction,
        });
    }
  };

  return {
    deliver: (channel, address, message) =>
      withRetries(config.CHANNEL_RETRIES, () => once(channel, address, message)),
    close: () => smtp?.close(),
  };
}
