/**
 * MongoDB for tests: the server named by `MONGODB_URL` with a fresh database (dropped on stop),
 * else a jongodb stand-in (design/test-infra.md) started on a free loopback port.
 *
 * @example
 *   const mongo = await startMongo();
 *   const store = new MongoStore({ url: mongo.url, database: mongo.database, ... });
 *   // ...
 *   await mongo.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePorts, killGroup, stopProcess } from './process.ts';

export interface MongoFixture {
  readonly url: string;
  readonly database: string;
  /** True for the jongodb stand-in, false for a real server from `MONGODB_URL`. */
  readonly standIn: boolean;
  stop(): Promise<void>;
}

const JONGODB_BIN = resolve('node_modules/@jongodb/memory-server-bin-linux-x64-gnu/bin/jongodb');
const READY_TIMEOUT_MS = 20_000;

export async function startMongo(): Promise<MongoFixture> {
  const database = `streamfold_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const external = process.env.MONGODB_URL;
  return external ? useServer(external, database) : startJongodb(database);
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
  const child = spawn(JONGODB_BIN, ['--host=127.0.0.1', `--port=${port}`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => killGroup(child);
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await stopProcess(child);
  };
  try {
    const uri = await readyUri(child);
    const url = `${uri}${uri.includes('?') ? '&' : '?'}directConnection=true`;
    return { url, database, standIn: true, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits for the `JONGODB_URI=` line jongodb prints once it accepts connections. */
function readyUri(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let output = '';
    const timer = setTimeout(
      () =>
        fail(
          new Error(`jongodb printed no JONGODB_URI within ${READY_TIMEOUT_MS} ms: ${output.slice(-2000)}`),
        ),
      READY_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /JONGODB_URI=(\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      child.stdout?.resume();
      done(match[1]!);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`jongodb exited with code ${code}: ${output.slice(-2000)}`));
    });
  });
}
