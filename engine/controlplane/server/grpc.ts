import * as grpc from '@grpc/grpc-js';
import type { DesiredState, EngineMessage } from '../messages.ts';
import { controlPlaneService } from '../proto.ts';
import type { ControlPlaneState } from './state.ts';

export interface GrpcEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The gRPC endpoint engines connect to (`controlplane.proto`): each `Connect` stream feeds the
 * state; desired states are written on it. `host:port`; port 0 picks a free one.
 */
export async function serveGrpc(
  state: ControlPlaneState,
  address: string,
  credentials = grpc.ServerCredentials.createInsecure(),
): Promise<GrpcEndpoint> {
  const server = new grpc.Server();
  server.addService(controlPlaneService(), {
    Connect(call: grpc.ServerDuplexStream<EngineMessage, DesiredState>) {
      const stream = state.open({ write: (desired) => call.write(desired) });
      call.on('data', (message: EngineMessage) => stream.receive(message));
      call.on('end', () => {
        stream.end();
        call.end();
      });
      // 'error' comes with a cancelled or broken stream (a killed engine): the stream is over.
      call.on('error', () => stream.end());
      call.on('cancelled', () => stream.end());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    // Engines keep their streams open until told: cancel them (they reconnect with backoff).
    close: async () => server.forceShutdown(),
  };
}
