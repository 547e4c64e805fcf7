import type { z } from 'zod';
import { ERROR_BODY_SCHEMA, openApiSchema, type PackageInfo } from '../kit/index.ts';
import {
  crudUpdateBody,
  EVENT_BODY,
  EVENT_SETTING_BODY,
  NOTIFICATION_SETTING_BODY,
  PATCH_OWN_SETTINGS_BODY,
  SAGA_COMMAND_BODY,
  SEND_BODY,
  TEMPLATE_BODY,
} from './bodies.ts';

type Method = 'get' | 'post' | 'patch' | 'delete';

const ERROR = { $ref: '#/components/schemas/Error' };

const ID = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

function operation(summary: string, body?: z.ZodType, errors: number[] = [], success = 200) {
  const responses: Record<string, unknown> = { [String(success)]: { description: 'OK' } };
  for (const status of [...(body ? [400] : []), ...errors]) {
    responses[String(status)] = { description: 'error', content: { 'application/json': { schema: ERROR } } };
  }
  return {
    summary,
    ...(body
      ? { requestBody: { required: true, content: { 'application/json': { schema: openApiSchema(body) } } } }
      : {}),
    responses,
  };
}

function crud(
  path: string,
  what: string,
  body: z.ZodObject,
  conflict: boolean,
): Record<string, Partial<Record<Method | 'parameters', unknown>>> {
  const duplicate = conflict ? [409] : [];
  return {
    [path]: { get: operation(`list ${what}`), post: operation(`create ${what}`, body, duplicate) },
    [`${path}/count`]: { get: operation(`count ${what}`) },
    [`${path}/{id}`]: {
      parameters: [ID],
      get: operation(`read ${what}`, undefined, [404]),
      patch: operation(`update ${what} (CRUD update operators)`, crudUpdateBody(body), [404, ...duplicate]),
      delete: operation(`delete ${what}`, undefined, [404], 204),
    },
  };
}

/** The OpenAPI 3.1 document of `GET /documentation/json`, from the zod schemas that validate the bodies. */
export function openApiDocument(info: PackageInfo) {
  return {
    openapi: '3.1.0',
    info: { title: info.name, version: info.version },
    paths: {
      '/send': { post: operation('send a message to users on channels', SEND_BODY, [404]) },
      '/notification-events': { post: operation('process a platform event', EVENT_BODY) },
      '/saga/send': {
        post: operation('send the message a Flow Manager command carries', SAGA_COMMAND_BODY, [404]),
      },
      '/notifications': { get: operation('list notifications') },
      '/notifications/count': { get: operation('count notifications') },
      '/notifications/{id}': { parameters: [ID], get: operation('read a notification', undefined, [404]) },
      ...crud('/notification-settings', 'notification settings', NOTIFICATION_SETTING_BODY, true),
      ...crud('/event-settings', 'event settings', EVENT_SETTING_BODY, true),
      ...crud('/templates', 'templates', TEMPLATE_BODY, true),
      '/user-notification-settings': {
        get: operation('the settings reaching the logged user', undefined, [401]),
      },
      '/user-notification-settings/{id}': {
        parameters: [ID],
        patch: operation(
          "update the logged user's own setting",
          crudUpdateBody(NOTIFICATION_SETTING_BODY),
          [401, 404],
        ),
        delete: operation("delete the logged user's own setting", undefined, [401, 404], 204),
      },
      '/user/events': { get: operation('events visible to the logged user', undefined, [401]) },
      '/user/notification-settings': {
        patch: operation(
          'the logged user enables channels for an event',
          PATCH_OWN_SETTINGS_BODY,
          [401, 403],
        ),
      },
    },
    components: { schemas: { Error: ERROR_BODY_SCHEMA } },
  };
}
