import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { wireProblem } from './wire-check.ts';

/** Path of the protocol definition, for control planes written in other languages too. */
export const PROTO_PATH = fileURLToPath(new URL('./controlplane.proto', import.meta.url));

/** Decoding options `messages.ts` is written for. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export const SERVICE_NAME = 'streamfold.controlplane.v1.ControlPlane';
const DESIRED_STATE = 'streamfold.controlplane.v1.DesiredState';

/** A message from the control plane that is not valid protobuf (the stream survives it). */
export class UndecodableMessage {
  constructor(readonly reason: string) {}
}

let loaded: protoLoader.PackageDefinition | undefined;

/** The proto loaded once per process (synchronously: it is a small local file). */
export function packageDefinition(): protoLoader.PackageDefinition {
  loaded ??= protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
  return loaded;
}

/** The service definition, for `grpc.Server#addService` (reference and test control planes). */
export function controlPlaneService(): grpc.ServiceDefinition {
  return packageDefinition()[SERVICE_NAME] as grpc.ServiceDefinition;
}

/**
 * The client constructor the engine dials with. Its `Connect` decoder turns bytes that are not
 * exactly one `DesiredState` (truncated, over-long, a wrong wire type: see `wireProblem`) into an
 * `UndecodableMessage` instead of throwing: grpc-js would otherwise cancel the whole stream, and
 * one bad message from the control plane must only be rejected.
 */
export function controlPlaneClient(): grpc.ServiceClientConstructor {
  const service = controlPlaneService();
  const connect = service.Connect as grpc.MethodDefinition<object, object>;
  const desiredState = protobuf.loadSync(PROTO_PATH).resolveAll().lookupType(DESIRED_STATE);
  const tolerant: grpc.MethodDefinition<object, object | UndecodableMessage> = {
    ...connect,
    responseDeserialize: (bytes: Buffer) => {
      const problem = wireProblem(bytes, desiredState);
      if (problem) return new UndecodableMessage(problem);
      try {
        return connect.responseDeserialize(bytes);
      } catch (error) {
        return new UndecodableMessage(error instanceof Error ? error.message : String(error));
      }
    },
  };
  return grpc.makeClientConstructor({ ...service, Connect: tolerant }, SERVICE_NAME);
}
