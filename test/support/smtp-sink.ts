/**
 * A minimal SMTP server on loopback that accepts every message and records it, for tests of
 * services that send email (nodemailer talks to it as to any server; no TLS, no auth).
 *
 * @example
 *   const smtp = await startSmtpSink();
 *   // SMTP_URL = smtp.url
 *   await waitFor(() => smtp.messages.length === 1);
 *   await smtp.stop();
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';

export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  /** The raw message: headers and body, dot-unstuffed. */
  readonly data: string;
}

export interface SmtpSink {
  readonly url: string;
  readonly messages: ReceivedMail[];
  stop(): Promise<void>;
}

/** `port` 0 (default): any free port; `onMessage` sees each message as it arrives. */
export async function startSmtpSink(
  options: { port?: number; onMessage?: (mail: ReceivedMail) => void } = {},
): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let from = '';
    let to: string[] = [];
    let data: string[] | undefined;
    let pending = '';
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 smtp-sink ready');
    socket.on('data', (chunk) => {
      pending += chunk.toString('utf8');
      for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (data) {
          if (line === '.') {
            const mail = { from, to, data: data.join('\r\n') };
            messages.push(mail);
            options.onMessage?.(mail);
            data = undefined;
            to = [];
            reply('250 queued');
          } else data.push(line.startsWith('..') ? line.slice(1) : line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'MAIL') from = line.replace(/^MAIL FROM:\s*<?([^>]*)>?.*$/i, '$1');
        if (verb === 'RCPT') to.push(line.replace(/^RCPT TO:\s*<?([^>]*)>?.*$/i, '$1'));
        if (verb === 'DATA') data = [];
        reply(verb === 'DATA' ? '354 end with .' : verb === 'QUIT' ? '221 bye' : '250 ok');
        if (verb === 'QUIT') socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
