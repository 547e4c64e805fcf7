/**
 * The local broker's Java classpath, resolved by Maven from `pom.xml` (Apache Kafka and a logging
 * backend). The jars stay in Maven's local repository; the resolved list is cached per POM under
 * the user's cache folder, and used again while every jar in it is still there.
 *
 * @example
 *   const { classpath, kafkaVersion } = await resolveClasspath();
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const LOCAL_KAFKA_DIR = dirname(fileURLToPath(import.meta.url));
const POM = join(LOCAL_KAFKA_DIR, 'pom.xml');
/** A fresh machine downloads about 60 MB of jars; Maven's own retries are bounded. */
const RESOLVE_TIMEOUT_MS = 10 * 60_000;

export interface ResolvedKafka {
  /** Jar paths joined with `:`. */
  readonly classpath: string;
  /** The `kafka.version` the POM pins, e.g. `4.1.1`. */
  readonly kafkaVersion: string;
}

export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
}

export function pinnedKafkaVersion(pom = readFileSync(POM, 'utf8')): string {
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1];
  if (!version) throw new Error(`${POM}: no <kafka.version> property`);
  return version;
}

/** True when `java` and `mvn` are on the PATH (what the local broker needs); looked up, not run. */
export function javaAndMavenPresent(path = process.env.PATH ?? ''): boolean {
  const onPath = (tool: string) =>
    path.split(delimiter).some((dir) => {
      try {
        accessSync(join(dir, tool), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return onPath('java') && onPath('mvn');
}

export async function resolveClasspath(): Promise<ResolvedKafka> {
  const pom = readFileSync(POM, 'utf8');
  const kafkaVersion = pinnedKafkaVersion(pom);
  const cacheFile = join(
    cacheDir(),
    `kafka-${createHash('sha256').update(pom).digest('hex').slice(0, 16)}.classpath`,
  );
  if (existsSync(cacheFile)) {
    const classpath = readFileSync(cacheFile, 'utf8').trim();
    if (classpath !== '' && classpath.split(':').every((jar) => existsSync(jar)))
      return { classpath, kafkaVersion };
  }
  const outputFile = `${cacheFile}.${process.pid}.tmp`;
  mkdirSync(dirname(cacheFile), { recursive: true });
  try {
    await run(
      'mvn',
      [
        '-B',
        '-ntp',
        '-q',
        '-f',
        POM,
        'dependency:build-classpath',
        `-Dmdep.outputFile=${outputFile}`,
        '-Dmdep.includeScope=runtime',
      ],
      { timeout: RESOLVE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    rmSync(outputFile, { force: true });
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT')
      throw new MissingToolError('mvn not found: the local Kafka broker needs Maven and Java 17+');
    const output = `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`Maven could not resolve Apache Kafka ${kafkaVersion} from ${POM}:\n${output}`);
  }
  const classpath = readFileSync(outputFile, 'utf8').trim();
  // Maven writes its own file, renamed whole: two runners resolving at once never read half a list.
  renameSync(outputFile, cacheFile);
  return { classpath, kafkaVersion };
}

/** `~/.cache/streamfold` (`$XDG_CACHE_HOME/streamfold` when set): what streamfold provisions for itself. */
export function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'streamfold');
}
