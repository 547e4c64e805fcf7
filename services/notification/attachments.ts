import { request } from 'undici';
import { PermanentError } from './retry.ts';

/** An attachment as the reference names it: a file of the file service, `file` its name there. */
export interface AttachmentRef {
  readonly file: string;
  /** The name the recipient sees; default `file`. */
  readonly name?: string;
}

export interface Attachment {
  readonly filename: string;
  readonly content: Buffer;
}

/** The reference's limit on the attachments of one email. */
export const MAX_ATTACHMENTS_BYTES = 15 * 1024 * 1024;

/**
 * Downloads attachments from the file service (`GET <url>/download/<file>`), all of one email at
 * most {@link MAX_ATTACHMENTS_BYTES} together; a download stops as soon as it passes the limit.
 */
export async function downloadAttachments(
  fileServiceUrl: string | undefined,
  refs: readonly AttachmentRef[],
  timeoutMs: number,
): Promise<Attachment[]> {
  if (refs.length === 0) return [];
  if (!fileServiceUrl) throw new PermanentError('attachments need FILE_SERVICE_URL');
  let total = 0;
  const attachments: Attachment[] = [];
  for (const ref of refs) {
    const url = new URL(
      `download/${encodeURIComponent(ref.file)}`,
      fileServiceUrl.endsWith('/') ? fileServiceUrl : `${fileServiceUrl}/`,
    );
    const answer = await request(url, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    if (answer.statusCode >= 300) {
      await answer.body.dump();
      const problem = `file service answered ${answer.statusCode} for "${ref.file}"`;
      throw answer.statusCode >= 500 ? new Error(problem) : new PermanentError(problem);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of answer.body) {
      total += (chunk as Buffer).length;
      if (total > MAX_ATTACHMENTS_BYTES) {
        answer.body.destroy();
        throw new PermanentError(`attachments larger than ${MAX_ATTACHMENTS_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    attachments.push({ filename: ref.name ?? ref.file, content: Buffer.concat(chunks) });
  }
  return attachments;
}
