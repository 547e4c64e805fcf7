/**
 * MongoDB for tests, as `backends.ts` chooses: the server named by `MONGODB_URL` or a MongoDB
 * container, with a fresh database (dropped on stop), else a jongodb stand-in
 * (design/test-infra.md) started on a free loopback port.
 *
 * @example
 *   const mongo = await startMongo();
 *   const store = new MongoStore({ url: mongo.url, database: mongo.database, ... });
 *   // ...
 *   await mongo.stop();
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { backends } from './backends.ts';
import { freePorts, spawnLogged, stopProcess } from './process.ts';
import { type StandInLog, standInLog, TAIL_LINES } from './stand-in-log.ts';

export interface MongoFixture {
  readonly url: string;
  readonly database: string;
  /** True for the jongodb stand-in, false for a real server from `MONGODB_URL`. */
  readonly standIn: boolean;
  /** The stand-in's process (its CPU time, for benchmarks); absent for a server or a container. */
  readonly pid?: number;
  stop(): Promise<void>;
}

const JONGODB_BIN = resolve('node_modules/@jongodb/memory-server-bin-linux-x64-gnu/bin/jongodb');
/** jongodb starts in under a second on an idle machine; the bound holds with both cores busy. */
const READY_TIMEOUT_MS = 60_000;

export async function startMongo(): Promise<MongoFixture> {
  const database = `streamfold_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const backend = (await backends()).mongo;
  if (backend.kind === 'external') return useServer(backend.address, database);
  if (backend.kind === 'container') return startContainer(backend.image, database);
  return startJongodb(database);
}

/** A MongoDB container (testcontainers), its log streamed to the stand-in log folder. */
async function startContainer(image: string, database: string): Promise<MongoFixture> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const container = await new MongoDBContainer(image).start();
  (await container.logs()).pipe(createWriteStream(standInLog('mongodb').path));
  const url = `${container.getConnectionString()}?directConnection=true`;
  const server = await useServer(url, database);
  return {
    ...server,
    stop: async () => {
      await server.stop().catch(() => undefined);
      await container.stop();
    },
  };
}

async function useServer(url: string, database: string): Promise<MongoFixture> {
  const stop = async () => {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  };
  return { url, database, standIn: false, stop };
}

async function startJongodb(database: string): Promise<MongoFixture> {
  const [port] = await freePorts(1);
  const log = standInLog('jongodb');
  const child = spawnLogged(JONGODB_BIN, ['--host=127.0.0.1', `--port=${port}`], log);
  const stop = () => stopProcess(child);
  try {
    const url = await waitUntilReady(child, log);
    return { url, database, standIn: true, stop, ...(child.pid ? { pid: child.pid } : {}) };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The `JONGODB_URI=` line jongodb prints when it listens, then a `ping` through the driver: a
 * listening port is not yet a server that answers.
 */
async function waitUntilReady(child: ChildProcess, log: StandInLog): Promise<string> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'no JONGODB_URI line yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`jongodb exited with code ${child.exitCode}: ${log.tail(TAIL_LINES)}`);
    const uri = /JONGODB_URI=(\S+)/.exec(log.text())?.[1];
    if (uri) {
      const url = `${uri}${uri.includes('?') ? '&' : '?'}directConnection=true`;
      const client = new MongoClient(url, {
        serverSelectionTimeoutMS: Math.max(1000, deadline - Date.now()),
      });
      try {
        await client.db('admin').command({ ping: 1 });
        return url;
      } catch (error) {
        lastError = (error as Error).message;
      } finally {
        await client.close();
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`jongodb not ready after ${READY_TIMEOUT_MS} ms: ${lastError}`);
}
